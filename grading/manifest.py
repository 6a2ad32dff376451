"""`manifest.csv`: a deal folder's record of who was dealt which scenario, read and written here.

The dealer (`diagnose.classroom.deal`) writes it and reads it back to resume a deal; the class
grader
(`grading.gradebook`) and the Gradescope packer (`diagnose.classroom.gradescope`) read it to bind
each
student to the code dealt. One rule for all of them:

- columns `student,code,email,level,lang` (`COLUMNS`), one row per student;
- a first row whose first cell is `student` (any case) is a header: it names the columns after
  the first two, which are always the student and the code (as every grader has read them); a
  manifest of an older version, without a header or without `lang`, still reads (a missing
  column reads empty);
- a student's name is one folder of the deal folder (their bundle's), and `lang` is empty or a
  language of `scenarios.langs.LANGS`; anything else is refused in one line, naming the row.

stdlib only, like the rest of `grading`. Not here: what the rows mean to a deal (resuming,
levels: `diagnose.classroom.deal`) or to a grading (the roster: `grading.gradebook`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from grading.layout import MANIFEST
from scenarios.errors import UserError
from scenarios.files import atomic_write, loads_csv, read_small_text
from scenarios.langs import LANGS

MAX_BYTES = 16 * 1024 * 1024  # a class of `layout.MAX_STUDENTS` with long emails fits easily


class ManifestError(UserError):
    """A manifest that cannot be read or written; one line saying why."""


class ManifestRow(NamedTuple):
    student: str  # the bundle's folder name
    code: str     # the scenario dealt
    email: str = ""
    level: str = ""  # the deck dealt; empty in a manifest older than levels
    lang: str = ""   # the student's feedback language; empty: the deal's


COLUMNS = ManifestRow._fields


def manifest_path(folder: Path) -> Path:
    return Path(folder) / MANIFEST


def is_folder_name(name: str) -> bool:
    """Whether `name` names one folder inside the deal folder (a bundle, a results file)."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def read_manifest(folder: Path) -> list[ManifestRow]:
    """The rows of `folder`'s manifest, in its order; empty when it has none."""
    path = manifest_path(folder)
    if not path.exists():
        return []
    text = read_small_text(path, "a manifest", MAX_BYTES, error=ManifestError)
    try:
        rows = loads_csv(text)
    except ValueError as err:
        raise ManifestError(f"{path}: not a CSV manifest ({err})") from None
    columns = list(COLUMNS)
    first = 0
    if rows and rows[0][0].strip().casefold() == COLUMNS[0]:
        columns = [*COLUMNS[:2], *(c.strip().casefold() for c in rows[0][2:])]
        first = 1
    listed = []
    for number, row in enumerate(rows[first:], start=first + 1):
        cells = dict(zip(columns, (c.strip() for c in row), strict=False))
        if not cells.get("student"):
            continue
        listed.append(_checked(ManifestRow(*(cells.get(c, "") for c in COLUMNS)), path, number))
    return listed


def _checked(row: ManifestRow, path: Path, number: int) -> ManifestRow:
    if not is_folder_name(row.student):
        raise ManifestError(f"{path}, row {number}: {row.student!r} is not a student's folder "
                            "name")
    if row.lang and row.lang.lower() not in LANGS:
        raise ManifestError(f"{path}, row {number}: lang {row.lang!r} is not one of "
                            + ", ".join(LANGS))
    return row._replace(lang=row.lang.lower())


def write_manifest(folder: Path, rows: Iterable[ManifestRow]) -> Path:
    """Write `rows` under a header, atomically (`scenarios.files.atomic_write`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return atomic_write(manifest_path(folder), buffer.getvalue(), error=ManifestError)
