"""The instructor's view of a class: the answer key, and each student's solutions to hand back.

`diagnose answers --key K --bundles B` writes the answer key: a CSV with one row per student of
the manifest (student, email, level, lang, code, then each ID's break, and a note when a bundle
cannot be opened); it records nothing and shows no student anything. `diagnose reveal --key K
--bundles B [STUDENT...]` writes, per student, the same solutions file a self-study reveal
writes (`diagnose.diagnosis.reveal.render_solutions`: each break explained with that run's own
numbers),
in the student's language (their manifest row's `lang`, else the deal's), into a folder to hand
back, one subfolder per student; and records in the instructor's ledger that those students
were shown their answers (`grading.ledger.mark_shown`), so no later attempt of theirs counts.

The truth and the level are derived from the key and the manifest (`grading.dealt`); a
bundle whose scenario or metrics are not the ones dealt is refused (its numbers would not be
the ones the deal kept). Check, then record: every solutions file is rendered in memory
first; then the ledger records the reveal (a student's answers count as shown from the moment
they could be); then the files are written. The bundles are not touched: a reveal handed
back is a file of its own.

The truth comes from where class grading takes it (`grading.gradebook.gradebook_rows`), so the
answer key is what grading scores against. Not here: grading (`instructor_grading`), the class
summary (`class_report`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from grading.attempts import utc_stamp
from grading.dealt import deal_lang, disagreements, metrics_as_dealt
from grading.gradebook import (
    dealt_scenario,
    dealt_students,
    gradebook_rows,
    one_line,
    spreadsheet_safe,
)
from grading.ledger import mark_shown
from grading.manifest import read_manifest
from scenarios.errors import UserError
from scenarios.files import atomic_write

SHOWN_BY_REVEAL = "solutions handed back (diagnose reveal --key)"


class AnswersError(UserError):
    """An answer key or a reveal that cannot be made; one line saying why."""


@dataclass(frozen=True)
class KeyRow:
    """One student of the answer key: who, where to reach them, what was dealt."""

    student: str
    email: str
    level: int | None
    lang: str    # the student's language: their manifest row's, else the deal's
    code: str
    truth: dict[str, str]  # ID -> slug
    note: str = ""  # why the bundle could not be opened


def student_langs(bundles: Path, lang: str | None = None) -> dict[str, str]:
    """Each student's language: their manifest row's `lang`, else `lang`, else the deal's (its
    `deal-settings.json`), else English. Feedback, solutions and start sheets all speak it."""
    default = lang or deal_lang(bundles)
    return {row.student: row.lang or default for row in read_manifest(bundles)}


def answer_key(bundles: Path, secret: bytes) -> list[KeyRow]:
    """Every student of the manifest, in its order, with the breaks they were dealt."""
    rows = {row.student: row for row in gradebook_rows(bundles, secret)}
    listed = {row.student: row for row in read_manifest(bundles)}
    langs = student_langs(bundles)
    out = []
    for name, row in rows.items():
        dealt = listed.get(name)
        level = row.level if row.level is not None else (
            int(dealt.level) if dealt and dealt.level.isdigit() else None)
        out.append(KeyRow(name, dealt.email if dealt else "", level,
                          langs.get(name, deal_lang(bundles)), row.code, dict(row.truth),
                          row.error))
    return out


def write_answer_key(rows: Sequence[KeyRow], path: Path) -> Path:
    """The CSV: student, email, level, lang, code, one column per ID (its break's slug), note.
    Cells a spreadsheet would evaluate are neutralised; written whole or not at all."""
    ids = sorted({i for row in rows for i in row.truth})
    stream = io.StringIO()
    out = csv.writer(stream)
    out.writerow(["student", "email", "level", "lang", "code", *ids, "note"])
    for row in rows:
        cells = [row.student, row.email, "" if row.level is None else row.level, row.lang,
                 row.code, *(row.truth.get(i, "") for i in ids), row.note]
        out.writerow([spreadsheet_safe(one_line(c) if isinstance(c, str) else c)
                      for c in cells])
    return atomic_write(Path(path), stream.getvalue(), error=AnswersError)


def chosen(bundles: Path, names: Sequence[str], outcome: str = "nothing written") -> list[str]:
    """The students `names` name (as the manifest spells them), all when none is named;
    AnswersError for a name the manifest does not list."""
    roster = dealt_students(bundles)
    if not names:
        return [s.name for s in roster]
    found = []
    for name in names:
        student = roster.named(name)
        if student is None:
            raise AnswersError(f"{name}: not a student of {Path(bundles) / 'manifest.csv'}; "
                               f"{outcome}")
        found.append(student.name)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class HandBack:
    """A reveal written for a class: each student's solutions file, in their language."""

    files: dict[str, Path]  # student -> the solutions file written
    langs: dict[str, str]


def reveal_class(bundles: Path, secret: bytes, names: Sequence[str], out: Path, *,
                 lang: str | None = None, now: datetime | None = None) -> HandBack:
    """Write `out/<student>/<solutions file>` for each student named (all when none), and
    record in the ledger that their answers were shown. `lang`: the language of students whose
    manifest row names none (default: the deal's)."""
    from diagnose.diagnosis.reveal import render_solutions
    from diagnose.workspace import open_workspace

    bundles, out = Path(bundles), Path(out)
    students = chosen(bundles, names, "nothing revealed")
    keys = {row.student: row for row in answer_key(bundles, secret)}
    speaks = student_langs(bundles, lang)
    by_name = {s.name: s for s in dealt_students(bundles)}
    now = now or datetime.now(UTC)
    texts, langs = {}, {}
    for name in students:
        row = keys[name]
        if row.note:
            raise AnswersError(f"{name}: {row.note}; nothing revealed")
        langs[name] = speaks.get(name, row.lang)
        dealt = dealt_scenario(by_name[name], bundles, secret)  # the truth and the level: derived
        problems = disagreements(dealt, secret)
        numbers_ok, why = metrics_as_dealt(dealt, ("reference", *dealt.ids))
        if problems or not numbers_ok:
            raise AnswersError(f"{name}: {(problems or [why])[0]}; nothing revealed",
                               hint="deal that student again (the same deal command) to "
                                    "restore the bundle, then reveal")
        workspace = open_workspace(dealt.workspace)
        texts[name] = (workspace.solutions_path.name,
                       render_solutions(workspace, dealt.truth, langs[name], now))
    if out.exists() and not out.is_dir():
        raise AnswersError(f"{out}: not a folder; --out is the folder to write the solutions in")
    mark_shown(bundles, secret, students, when=utc_stamp(now),
               what=SHOWN_BY_REVEAL)
    files = {}
    for name, (file_name, text) in texts.items():
        folder = out / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise AnswersError(f"{folder}: cannot be written ({err.strerror or err}); the "
                               "ledger records the reveal: run this again to write the files"
                               ) from None
        files[name] = atomic_write(folder / file_name, text, error=AnswersError)
    return HandBack(files, langs)


__all__ = ["AnswersError", "HandBack", "KeyRow", "answer_key", "reveal_class", "write_answer_key"]


@dataclass(frozen=True)
class RevealClassOptions:
    """What `diagnose reveal --key KEY --bundles DIR [STUDENT...]` was asked."""

    key_file: Path
    bundles: Path
    students: tuple[str, ...] = ()
    out: Path = Path("hand-back")
    lang: str | None = None


def reveal_to_class(options: RevealClassOptions) -> HandBack:
    """`reveal_class` with the key read from its file."""
    from grading.seal import read_key_file

    return reveal_class(options.bundles, read_key_file(options.key_file), options.students,
                        options.out, lang=options.lang)
