"""The grader: sealed answer keys, the diagnoses parser, scoring, feedback and gradebooks.

stdlib + cryptography only, and `scenarios` for the catalog's words: never numpy or textual,
nor anything of `diagnose`, so an instructor can grade a class on a bare server.

    seal.py        sealed answer keys (Fernet) and key files
    words.py       matching words to the catalog's breaks (case, accents, hyphens ignored)
    markdown.py    what each line of a diagnoses file is
    diagnoses.py   reading a file into an answer per ID; refusals (DiagnosesError)
    writer.py      writing a file the reader reads back exactly (what the TUI saves)
    feedback.py    scoring, per-ID feedback, the Report and Check, text and JSON
    attempts.py    attempts.jsonl: one record per grading; sealed in a class
    policy.py      the one attempt policy: which attempt counts, everywhere
    layout.py      the names of a workspace's files
    grade.py       grading a file against a workspace; checking one without a key
    dealt.py       what a deal dealt, derived from the key and the manifest (never a bundle)
    ledger.py      the instructor's record of each student's attempts: the only one
    gradebook.py   grading a class from the instructor's records; CSV and Gradescope exports
    autograder.py  Gradescope's run_autograder: one upload graded offline from a packed class
"""

import importlib
from typing import Any

# Loaded on first use (PEP 562): `import grading.layout` stays cheap for the CLI's --help.
_HOME = {
    "AMBIGUOUS": "grading.diagnoses",
    "Answer": "grading.diagnoses",
    "Attempt": "grading.attempts",
    "Attempts": "grading.attempts",
    "Check": "grading.feedback",
    "DEFAULT_DIR": "grading.layout",
    "DiagnosesError": "grading.diagnoses",
    "EMPTY": "grading.diagnoses",
    "GradeError": "grading.diagnoses",
    "GradeOptions": "grading.grade",
    "Graded": "grading.gradebook",
    "MAX_BYTES": "grading.diagnoses",
    "MISSING": "grading.diagnoses",
    "Mention": "grading.words",
    "NAMED": "grading.diagnoses",
    "NOTHING": "grading.diagnoses",
    "Reading": "grading.diagnoses",
    "Report": "grading.feedback",
    "Result": "grading.feedback",
    "Row": "grading.gradebook",
    "Scenario": "grading.grade",
    "Status": "grading.diagnoses",
    "SealError": "grading.seal",
    "UNSURE": "grading.diagnoses",
    "Vocabulary": "grading.words",
    "check_file": "grading.grade",
    "dealt_students": "grading.gradebook",
    "describe": "grading.feedback",
    "find_scenario": "grading.grade",
    "format_diagnoses": "grading.writer",
    "grade_bundles": "grading.gradebook",
    "grade_reading": "grading.grade",
    "grade_workspace": "grading.grade",
    "gradebook_rows": "grading.gradebook",
    "normalise_evidence": "grading.diagnoses",
    "parse_diagnoses": "grading.diagnoses",
    "load_attempts": "grading.attempts",
    "read_attempts": "grading.attempts",
    "read_diagnoses": "grading.diagnoses",
    "read_key_file": "grading.seal",
    "read_manifest": "grading.manifest",
    "read_scenario": "grading.grade",
    "record_attempt": "grading.grade",
    "write_gradebook": "grading.gradebook",
    "write_gradescope": "grading.gradebook",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'grading' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "AMBIGUOUS", "DEFAULT_DIR", "EMPTY", "MAX_BYTES", "MISSING", "NAMED", "NOTHING", "UNSURE",
    "Answer", "Attempt", "Attempts", "Check", "DiagnosesError", "GradeError", "GradeOptions",
    "Graded", "Mention", "Reading", "Report", "Result", "Row", "Scenario", "SealError", "Status",
    "Vocabulary", "check_file",
    "dealt_students", "describe", "find_scenario", "format_diagnoses", "grade_bundles",
    "grade_reading", "grade_workspace", "gradebook_rows", "load_attempts", "normalise_evidence",
    "parse_diagnoses", "read_attempts", "read_diagnoses", "read_key_file", "read_manifest",
    "read_scenario", "record_attempt", "write_gradebook", "write_gradescope",
]
