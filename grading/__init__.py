"""The grader: sealed answer keys, the diagnoses parser, scoring, feedback and gradebooks.

stdlib + cryptography only, and `scenarios` for the catalog's words: never numpy or textual,
nor anything of `diagnose`, so an instructor can grade a class on a bare server.

    seal.py        sealed answer keys (Fernet) and key files
    words.py       matching words to the catalog's breaks (case, accents, hyphens ignored)
    markdown.py    what each line of a diagnoses file is
    diagnoses.py   reading a file into an answer per ID; refusals (DiagnosesError)
    writer.py      writing a file the reader reads back exactly (what the TUI saves)
    feedback.py    scoring, per-ID feedback, the Report and Check, text and JSON
    attempts.py    attempts.jsonl: the first grading counts
    grade.py       grading a file against a workspace; checking one without a key
    gradebook.py   grading a class into its bundles; CSV and Gradescope exports
"""

from grading.attempts import Attempt, read_attempts
from grading.diagnoses import (
    AMBIGUOUS,
    EMPTY,
    MAX_BYTES,
    MISSING,
    NAMED,
    NOTHING,
    UNSURE,
    Answer,
    DiagnosesError,
    GradeError,
    Reading,
    normalise_evidence,
    parse_diagnoses,
    read_diagnoses,
)
from grading.feedback import Check, Report, Result, describe
from grading.grade import (
    DEFAULT_DIR,
    Scenario,
    check_file,
    find_scenario,
    grade_reading,
    grade_workspace,
    read_scenario,
)
from grading.gradebook import (
    Graded,
    Row,
    grade_bundles,
    gradebook_rows,
    write_gradebook,
    write_gradescope,
)
from grading.seal import SealError, read_key_file
from grading.words import Mention, Vocabulary
from grading.writer import format_diagnoses

__all__ = [
    "AMBIGUOUS", "DEFAULT_DIR", "EMPTY", "MAX_BYTES", "MISSING", "NAMED", "NOTHING", "UNSURE",
    "Answer", "Attempt", "Check", "DiagnosesError", "GradeError", "Graded", "Mention", "Reading",
    "Report", "Result", "Row", "Scenario", "SealError", "Vocabulary", "check_file", "describe",
    "find_scenario", "format_diagnoses", "grade_bundles", "grade_reading", "grade_workspace",
    "gradebook_rows", "normalise_evidence", "parse_diagnoses", "read_attempts",
    "read_diagnoses", "read_key_file", "read_scenario", "write_gradebook", "write_gradescope",
]
