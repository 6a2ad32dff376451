"""Grades for an LMS: the counted score of each student in a file Canvas or Moodle imports.

The full gradebook (`gradebook.write_gradebook`) is the instructor's: it holds every student's
answers and the truth of every scenario, including the truth of students who never handed in,
so it stays private. What goes to an LMS is one score per student and what the LMS matches
students by, nothing else (`FORMATS`):

- `canvas`: the columns of Canvas's gradebook export and import (Gradebook, Import):
  `Student`, `ID` (the Canvas user ID, when the counted file came from a Canvas download:
  `collect.lms_id`), `SIS User ID`, `SIS Login ID` (the manifest's email, where a course's login
  is its email), `Section`, and one assignment column (`ASSIGNMENT`) with the score; an empty
  cell changes no grade. Canvas asks about a row it cannot match before it imports anything.
- `moodle`: the columns of an assignment's grading worksheet (View all submissions, Upload
  grading worksheet), `Identifier` (`Participant <id>`, when the counted file's name came from
  Moodle's flat download; a download in folders keeps only the original name, the ledger only
  the file's name, so those rows are matched by email), `Full name`, `Email address`, `Grade`,
  `Maximum Grade`; "Import grades from CSV" maps `Email address` to the user's email instead.
- `plain`: `student,email,score,max_score`, for anything else.

Every cell is printable and spreadsheet-safe, as the full gradebook's. stdlib only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from grading.collect import lms_id
from grading.diagnoses import GradeError
from grading.gradebook import Row, one_line, spreadsheet_safe
from grading.manifest import read_manifest
from scenarios.files import atomic_write

FORMATS = ("full", "canvas", "moodle", "plain")  # `full`: the private gradebook
ASSIGNMENT = "diagnose"  # the score's column: Canvas makes an assignment of that name


def lms_table(rows: Sequence[Row], bundles: Path, form: str) -> list[list[object]]:
    """The header and a row per student (refused-file rows are not students) in `form`."""
    emails = {row.student: row.email for row in read_manifest(bundles)}
    students = [row for row in rows if not row.file]
    if form == "plain":
        table: list[list[object]] = [["student", "email", "score", "max_score"]]
        table += [[r.student, emails.get(r.student, ""), *_score(r)] for r in students]
    elif form == "canvas":
        table = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT]]
        table += [[r.student, _id(r, "canvas"), "", emails.get(r.student, ""), "", _score(r)[0]]
                  for r in students]
    elif form == "moodle":
        table = [["Identifier", "Full name", "Email address", "Grade", "Maximum Grade"]]
        table += [[_participant(r), r.student, emails.get(r.student, ""), *_score(r)]
                  for r in students]
    else:
        raise GradeError(f"{form!r}: not a gradebook format ({', '.join(FORMATS)})")
    return table


def _score(row: Row) -> tuple[object, object]:
    counted = row.first
    return (counted.score, counted.max_score) if counted else ("", "")


def _id(row: Row, lms: str) -> str:
    found = lms_id(row.first.file) if row.first else None
    return found[1] if found and found[0] == lms else ""


def _participant(row: Row) -> str:
    number = _id(row, "moodle")
    return f"Participant {number}" if number else ""


def write_lms_gradebook(rows: Sequence[Row], bundles: Path, path: Path, form: str) -> Path:
    """Write `lms_table` as CSV, whole or not at all."""
    stream = io.StringIO()
    out = csv.writer(stream)
    for line in lms_table(rows, bundles, form):
        out.writerow([spreadsheet_safe(one_line(c) if isinstance(c, str) else c) for c in line])
    return atomic_write(Path(path), stream.getvalue(), error=GradeError)
