"""Where the diagnoses file goes, and writing it from the drafts (the grader formats it).

The file is `<name>-diagnoses.md`, saved in the folder that holds `experiments/` when the
workspace lives inside one (the default `experiments/19-break-it` layout: the file lands in
the course folder, next to `experiments/` and `solutions/`), and in the current directory
otherwise (an instructor's bundle unpacked anywhere: where the student ran `diagnose play`).
The name becomes a file name by keeping letters, digits, `-` and `_` and turning every other
run of characters into one `-`: "Ana María García" saves `Ana-María-García-diagnoses.md`.

No Textual: the app calls these from its actions.
"""

from __future__ import annotations

import re
from pathlib import Path

from diagnose.tui.drafts import Drafts
from diagnose.workspace import Workspace, course_dir
from scenarios.files import atomic_write

SUFFIX = "-diagnoses.md"


def file_stem(name: str) -> str:
    stem = re.sub(r"[^\w-]+", "-", name.strip(), flags=re.UNICODE).strip("-_")
    return stem or "student"


def diagnoses_path(workspace: Path, name: str, level: int, cwd: Path | None = None) -> Path:
    """`<name>-diagnoses.md`, named as the level names its files (`Level.named`: level 2's
    is `<name>-diagnoses-level-2.md`), so one course folder holds a file per level."""
    from scenarios.levels import level as entry

    stem = entry(level).named(f"{file_stem(name)}{SUFFIX.removesuffix('.md')}")
    return course_dir(workspace, cwd) / f"{stem}.md"


def write_diagnoses(workspace: Workspace, name: str, drafts: Drafts, lang: str,
                    cwd: Path | None = None) -> Path:
    """Write `name`'s drafts as a diagnoses file (architecture §8), atomically; its path.

    Raises OSError, ValueError."""
    import grading

    text = grading.format_diagnoses(name, workspace.code, drafts.for_grader(workspace.ids),
                                    lang, workspace.level)
    path = diagnoses_path(workspace.path, name, workspace.level, cwd)
    return atomic_write(path, text, error=OSError)
