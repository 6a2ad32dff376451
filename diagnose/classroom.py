"""Dealing a class: a roster, one sealed bundle per student, and the instructor's manifest.

`deal` trains every student's scenario on the instructor's machine with one pool of worker
processes and seals each bundle with the instructor's key, which never leaves them. A bundle
is written whole or not at all, so an interrupted deal resumes where it stopped: bundles
already sealed with the same key are kept, and the manifest lists every student.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from diagnose.scenario import (
    OnStep,
    ScenarioError,
    TrainingPool,
    check_target,
    create_scenario,
    new_code,
)
from diagnose.workspace import DEFAULT_DIR, WorkspaceError, is_workspace, open_workspace
from grading.layout import MANIFEST
from grading.seal import SealError, sealed_code, unseal

ROSTER_MAX_BYTES = 1024 * 1024
# letters of any script, digits, dot, dash, underscore; no spaces, slashes or leading dot
SAFE_NAME = re.compile(r"^[^\W_][\w.-]{0,63}$")
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
            *(f"lpt{i}" for i in range(10))}


def check_name(name: str) -> str | None:
    """Why `name` is not a safe directory name, or None when it is."""
    if not SAFE_NAME.match(name):
        return ("use letters, digits, '.', '-' or '_' (no spaces or slashes), starting with a "
                "letter or digit, at most 64 characters")
    if name.split(".")[0].lower() in RESERVED:
        return "a reserved device name on Windows"
    return None


def read_roster(path: Path) -> list[str]:
    """Student names, one per line; blank lines and `#` comments are skipped."""
    path = Path(path)
    try:
        if path.stat().st_size > ROSTER_MAX_BYTES:
            raise ScenarioError(f"{path}: too large for a roster (over 1 MiB)")
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such roster file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path}: a directory, not a roster file") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not UTF-8 text") from None
    except OSError as err:
        raise ScenarioError(f"{path}: cannot be read ({err.strerror or err})") from None
    names: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        name = line.strip()
        if not name or name.startswith("#"):
            continue
        problem = check_name(name)
        if problem:
            raise ScenarioError(f"{path}:{number}: {name!r} is not a safe directory name: "
                                f"{problem}")
        folded = name.casefold()
        if folded in seen:
            raise ScenarioError(f"{path}:{number}: {name!r} repeats line {seen[folded]}")
        seen[folded] = number
        names.append(name)
    if not names:
        raise ScenarioError(f"{path}: no student names (one per line)")
    return names


def numbered_students(count: int) -> list[str]:
    if count < 1:
        raise ScenarioError(f"--count must be at least 1, got {count}")
    width = max(2, len(str(count)))
    return [f"student-{i:0{width}d}" for i in range(1, count + 1)]


def bundle_dir(out: Path, student: str) -> Path:
    return Path(out) / student / DEFAULT_DIR


def existing_code(target: Path, secret: bytes) -> str | None:
    """The code of a bundle this key already sealed at `target` (a resumed deal), else None."""
    if not is_workspace(target):
        return None
    try:
        workspace = open_workspace(target)
        text = workspace.sealed_text()
        if sealed_code(text) != workspace.code:
            raise SealError("mismatch")
        unseal(text, secret, workspace.code)
    except (WorkspaceError, SealError):
        raise ScenarioError(f"{target}: a scenario is already here, not sealed with this key; "
                            "deal into another --out folder") from None
    return workspace.code


def write_manifest(out: Path, rows: Sequence[tuple[str, str]]) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "code"])
    writer.writerows(rows)
    path = Path(out) / MANIFEST
    tmp = path.with_name(MANIFEST + ".tmp")
    tmp.write_text(buffer.getvalue(), encoding="utf-8")
    tmp.replace(path)
    return path


def deal(out: Path, students: Sequence[str], secret: bytes, *, steps: int | None = None,
         jobs: int = 2, lang: str = "en", on_step: OnStep | None = None,
         on_student: Callable[[str, str, bool], None] | None = None,
         on_redeal: Callable[[str], None] | None = None) -> list[tuple[str, str]]:
    """Make one sealed bundle per student under `out`; returns (student, code) rows."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"{out}: exists and is not a directory")
    plan: list[tuple[str, Path, str | None]] = []
    codes: set[str] = set()
    for student in students:
        target = bundle_dir(out, student)
        code = existing_code(target, secret)
        if code is None:
            check_target(target, force=False)
        else:
            codes.add(code)
        plan.append((student, target, code))
    out.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str]] = []
    with TrainingPool(jobs) as pool:
        for student, target, code in plan:
            resumed = code is not None
            if code is None:
                code = new_code()
                while code in codes:
                    code = new_code()
                codes.add(code)
                create_scenario(target, secret=secret, key="instructor", code=code, steps=steps,
                                lang=lang, on_step=on_step, on_redeal=on_redeal, pool=pool,
                                prefix=f"{student}/")
            rows.append((student, code))
            write_manifest(out, rows)
            if on_student is not None:
                on_student(student, code, resumed)
    return rows
