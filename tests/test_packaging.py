"""The distribution `diagnose-training`, and `diagnose wheel`: the installed package written back
as a wheel without a build backend, from an ordinary and from an editable install, holding what
the backend's own wheel holds, installable by pip and runnable."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose import __version__
from diagnose.cli import cli

ROOT = Path(__file__).resolve().parents[1]
NAME = f"diagnose_training-{__version__}-py3-none-any.whl"
INFO = f"diagnose_training-{__version__}.dist-info"


def run(*args: str | Path, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env,
                          timeout=120, **kwargs)
    assert done.returncode == 0, done.stderr
    return done


def pip(*args: str | Path) -> None:
    run(sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """The backend's wheel, an ordinary install of it (pip --target), and `diagnose wheel` run
    from that install."""
    tmp = tmp_path_factory.mktemp("packaging")
    pip("wheel", "--no-deps", "--no-build-isolation", "-w", tmp / "backend", ROOT)
    (backend,) = (tmp / "backend").glob("*.whl")
    pip("install", "--no-deps", "--target", tmp / "ordinary", backend)
    env = {**os.environ, "PYTHONPATH": str(tmp / "ordinary")}
    run(tmp / "ordinary" / "bin" / "diagnose", "wheel", "--out", tmp / "from-ordinary", env=env,
        cwd=tmp)
    return {"backend": backend, "ordinary": tmp / "from-ordinary" / NAME, "tmp": tmp}


@pytest.fixture(scope="module")
def editable(tmp_path_factory) -> Path:
    """`diagnose wheel` run from an editable install of this tree (a venv that sees the test
    dependencies), built as pip builds it: in an isolated env whose hatchling and editables
    come from the package index (skipped, saying so, when it is unreachable)."""
    tmp = tmp_path_factory.mktemp("editable")
    run(sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", tmp / "venv")
    venv_python = tmp / "venv" / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "-q", "--disable-pip-version-check",
                           "--python", str(venv_python), "install", "--no-deps", "-e", str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "install build dependencies" in done.stderr:
        pytest.skip("the package index is unreachable: pip could not install the build "
                    "dependencies (hatchling, editables) for `pip install -e`")
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    located = run(venv_python, "-c", "import diagnose; print(diagnose.__file__)", env=env)
    assert Path(located.stdout.strip()) == ROOT / "diagnose" / "__init__.py"  # editable
    run(tmp / "venv" / "bin" / "diagnose", "wheel", "--out", tmp / "from-editable", env=env,
        cwd=tmp)
    return tmp / "from-editable" / NAME


def test_the_distribution_has_its_own_name_and_keeps_the_command():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "diagnose-training"
    assert project["scripts"] == {"diagnose": "diagnose.cli:main"}
    assert "cluster" in project["optional-dependencies"]


def test_the_written_wheel_holds_what_the_backend_s_wheel_holds(wheels):
    backend = zipfile.ZipFile(wheels["backend"])
    written = zipfile.ZipFile(wheels["ordinary"])
    assert set(written.namelist()) == set(backend.namelist())
    for name in backend.namelist():
        if name not in (f"{INFO}/RECORD", f"{INFO}/WHEEL"):
            assert written.read(name) == backend.read(name), name


def test_an_editable_install_writes_the_same_wheel(wheels, editable):
    """The same bytes whichever way diagnose was installed (so the tests of the ordinary
    install's wheel hold for the editable install's)."""
    assert editable.read_bytes() == wheels["ordinary"].read_bytes()


def test_the_wheel_holds_the_catalog_the_stylesheets_and_the_console_script(wheels):
    wheel = zipfile.ZipFile(wheels["ordinary"])
    names = set(wheel.namelist())
    assert "scenarios/healthy.toml" in names
    assert "scenarios/locale/es/LC_MESSAGES/diagnose.mo" in names  # the words, compiled
    for slug in ("bad-init", "no-warmup", "broken-mask"):
        assert f"scenarios/breaks/{slug}/break.toml" in names
        assert f"scenarios/breaks/{slug}/signature.py" in names  # the diagnostician reads it
        for suffix in (".po", ".mo"):  # its own words, and their source for a translator
            assert f"scenarios/breaks/{slug}/locale/es/LC_MESSAGES/break{suffix}" in names
    for package in ("diagnose", "grading", "scenarios"):
        assert f"{package}/__init__.py" in names
    for resource in ("diagnose/views/dashboard/dashboard.css",
                     "diagnose/views/dashboard/dashboard.js", "diagnose/tui/play.tcss",
                     # the reveal's page: no docs/ ships
                     "diagnose/diagnosis/pages/signatures.en.md",
                     "diagnose/diagnosis/pages/signatures.es.md"):
        assert resource in names
    assert not any(n.startswith(("tests/", "bench/")) or n.endswith(".pyc") for n in names)
    assert "diagnose = diagnose.cli:main" in wheel.read(f"{INFO}/entry_points.txt").decode()
    metadata = wheel.read(f"{INFO}/METADATA").decode()
    assert "Name: diagnose-training\n" in metadata and f"Version: {__version__}\n" in metadata
    assert "Provides-Extra: cluster" in metadata
    assert "Tag: py3-none-any" in wheel.read(f"{INFO}/WHEEL").decode()


def test_the_record_lists_every_file_with_its_hash(wheels):
    wheel = zipfile.ZipFile(wheels["ordinary"])
    rows = list(csv.reader(io.StringIO(wheel.read(f"{INFO}/RECORD").decode())))
    assert sorted(r[0] for r in rows) == sorted(wheel.namelist())
    for name, digest, size in rows:
        if name == f"{INFO}/RECORD":
            assert (digest, size) == ("", "")
            continue
        data = wheel.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        assert digest == "sha256=" + expected.decode() and int(size) == len(data), name


def test_pip_installs_the_written_wheel_and_its_command_runs(wheels):
    target = wheels["tmp"] / "installed"
    pip("install", "--no-deps", "--target", target, wheels["ordinary"])
    env = {**os.environ, "PYTHONPATH": str(target)}
    shown = run(target / "bin" / "diagnose", "--help", env=env)
    assert "diagnose: learn how training failures look." in shown.stdout
    version = run(target / "bin" / "diagnose", "--version", env=env)
    assert version.stdout == f"diagnose, version {__version__}\n"


def test_an_install_of_another_version_is_one_error_line(wheels, tmp_path):
    target = tmp_path / "older"
    shutil.copytree(wheels["tmp"] / "ordinary", target)
    metadata = target / INFO / "METADATA"
    metadata.write_text(metadata.read_text().replace(f"Version: {__version__}\n",
                                                     "Version: 0.0.1\n"))
    (target / INFO).rename(target / "diagnose_training-0.0.1.dist-info")
    done = subprocess.run([str(target / "bin" / "diagnose"), "wheel", "--out", str(tmp_path)],
                          capture_output=True, text=True, env={**os.environ,
                                                               "PYTHONPATH": str(target)})
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"Error: the installed diagnose-training is 0.0.1, but this diagnose is {__version__}; "
        "install it again: pip install <the project's folder>"]
    assert not list(tmp_path.glob("*.whl"))


def test_no_install_and_a_file_for_a_folder_are_one_error_line(tmp_path, monkeypatch):
    import diagnose.classroom.wheel

    (tmp_path / "taken").write_text("")
    result = CliRunner().invoke(cli, ["wheel", "--out", str(tmp_path / "taken")])
    assert result.exit_code == 1
    assert result.output == (f"Error: {tmp_path / 'taken'}: is a file; name the folder to "
                             "write the wheel into\n")
    monkeypatch.setattr(diagnose.classroom.wheel, "DISTRIBUTION", "diagnose-training-elsewhere")
    result = CliRunner().invoke(cli, ["wheel", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (f"Error: diagnose-training-elsewhere is not installed in this "
                             f"Python ({sys.executable}); install it first: pip install {ROOT}\n")
    assert not list(tmp_path.glob("*.whl"))
