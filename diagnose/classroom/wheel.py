"""`diagnose wheel`: this installed package written back as a wheel, with no build backend.

An instructor installs the game the ordinary way (`pip install .`, or `pip install -e .`) and
later needs the very same version elsewhere: on Dask workers (`pip install
"<wheel>[cluster]"`). Nothing is published on the package index (`diagnose` there is another
project; ours is the distribution `diagnose-training`), so the wheel is written from what runs
here: the three import packages' files as they are installed (sources and data, no bytecode;
`package_files`, which the Gradescope zip uses too) and the installed distribution's own
metadata. A wheel is a zip with a `.dist-info` folder (PEP 427); nothing here needs hatchling,
pip or the source tree.

Not here: what a worker does with the wheel (docs/instructors.md, "A class on a cluster").
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.metadata
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from diagnose import __version__
from scenarios.errors import UserError
from scenarios.files import atomic_output

DISTRIBUTION = "diagnose-training"
PACKAGES = ("diagnose", "grading", "scenarios")
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed: the same install writes the same bytes


class WheelError(UserError):
    """The wheel cannot be written as asked; one line saying why."""


def wheel_name(version: str = __version__) -> str:
    """`diagnose_training-<version>-py3-none-any.whl` (PEP 427's escaped name)."""
    return f"{DISTRIBUTION.replace('-', '_')}-{version}-py3-none-any.whl"


def package_files(package: str) -> Iterator[tuple[str, Path]]:
    """(name inside a wheel, file) for each file of an import package as it runs here:
    sources and data (the catalog's TOML, the stylesheets), never bytecode or hidden files."""
    root = Path(importlib.import_module(package).__file__).resolve().parent
    for path in sorted(root.rglob("*")):
        inner = path.relative_to(root)
        if (any(part == "__pycache__" or part.startswith(".") for part in inner.parts)
                or path.suffix in (".pyc", ".pyo") or not path.is_file()):
            continue
        yield f"{package}/{inner.as_posix()}", path


def source_folder() -> Path | None:
    """The project folder this package runs from, when it runs from one (else None)."""
    import diagnose

    root = Path(diagnose.__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() else None


def installed_distribution() -> importlib.metadata.Distribution:
    """The installed `diagnose-training` at this version, or WheelError saying how to get it."""
    folder = source_folder()
    hint = f"pip install {folder}" if folder else "pip install <the project's folder>"
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise WheelError(f"{DISTRIBUTION} is not installed in this Python "
                         f"({sys.executable}); install it first: {hint}") from None
    if dist.version != __version__:
        raise WheelError(f"the installed {DISTRIBUTION} is {dist.version}, but this diagnose is "
                         f"{__version__}; install it again: {hint}")
    return dist


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o100644 << 16
    archive.writestr(info, data)


def write_wheel(folder: Path) -> Path:
    """Write this installed package as `folder/diagnose_training-<version>-py3-none-any.whl`
    (whole or not at all; an older copy is replaced) and return its path."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise WheelError(f"{folder}: is a file; name the folder to write the wheel into")
    dist = installed_distribution()
    metadata = dist.read_text("METADATA")
    if not metadata:
        raise WheelError(f"the installed {DISTRIBUTION} has no METADATA; install it again")
    entry_points = dist.read_text("entry_points.txt") or ""
    info = f"{DISTRIBUTION.replace('-', '_')}-{__version__}.dist-info"
    wheel_file = (f"Wheel-Version: 1.0\nGenerator: diagnose {__version__} (diagnose wheel)\n"
                  "Root-Is-Purelib: true\nTag: py3-none-any\n")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WheelError(f"{folder}: cannot be made ({err.strerror or err})") from None
    out = folder / wheel_name()
    record = []
    with (atomic_output(out, error=WheelError) as partial,
          zipfile.ZipFile(partial, "w") as archive):
        files = [(name, path.read_bytes()) for package in PACKAGES
                 for name, path in package_files(package)]
        files += [(f"{info}/METADATA", metadata.encode("utf-8")),
                  (f"{info}/WHEEL", wheel_file.encode("utf-8"))]
        if entry_points:
            files.append((f"{info}/entry_points.txt", entry_points.encode("utf-8")))
        for name, data in files:
            _add(archive, name, data)
            record.append(f"{name},{_record_hash(data)},{len(data)}")
        record.append(f"{info}/RECORD,,")
        _add(archive, f"{info}/RECORD", ("\n".join(record) + "\n").encode("utf-8"))
    return out
