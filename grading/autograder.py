"""Gradescope's `run_autograder`: grade one upload against the class's sealed keys, offline.

Gradescope runs this once per submission in a fresh container (README, "Gradescope"). It reads
what `diagnose gradescope-autograder` packed into `<root>/source/course/` (the manifest, each
student's `scenario.json` and sealed key, one derived key per scenario, the feedback numbers),
who submitted from `<root>/submission_metadata.json`, the upload from `<root>/submission/`,
and writes `<root>/results/results.json`. `<root>` is `/autograder`, or `$AUTOGRADER_ROOT`.

The first graded upload counts: each result carries its attempt in `extra_data`, sealed with an
HMAC under the scenario's key, and Gradescope hands the earlier results back in
`previous_submissions`. An upload that cannot be graded (a PDF, someone else's scenario, a
student not on the roster) gets a failing result that says why, and is not an attempt.

stdlib + cryptography, like the rest of `grading`: the image needs neither numpy nor the app.
Not here: building the zip (`diagnose.gradescope`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grading.diagnoses import MAX_BYTES, GradeError, Reading, parse_diagnoses
from grading.feedback import Result, notes, score
from grading.grade import read_scenario, same_code
from grading.layout import GRADESCOPE_VISIBILITIES, KEY_FILE, student_key
from grading.seal import SealError, unseal_scenario
from grading.texts import say
from scenarios.files import atomic_write, loads_csv, loads_json, read_small, read_small_text
from scenarios.langs import LANGS

COURSE = "course"  # inside the zip, and so inside /autograder/source
SETTINGS = "autograder.json"
BUNDLES = "bundles"
SCHEMA = "diagnose.autograder/1"
ATTEMPT_SCHEMA = "diagnose.gradescope-attempt/1"
VISIBILITIES = GRADESCOPE_VISIBILITIES
SETTINGS_MAX = 64 * 1024 * 1024  # feedback numbers for a large class
METADATA_MAX = 16 * 1024 * 1024  # previous submissions carry their results

TEXTS = {
    "en": {
        "not_on_roster": "{who} is not on this course's diagnose roster; ask your instructor "
                         "to add you and deal you a bundle.",
        "group": "This submission names several students ({names}); each student hands in "
                 "their own diagnoses file.",
        "no_file": "No file was uploaded: upload the diagnoses file diagnose saved (a .md "
                   "text file).",
        "several": "Several files were uploaded ({names}); upload only your diagnoses file.",
        "pdf": "{file} is a PDF; upload the diagnoses file itself (the .md text file diagnose "
               "saved), not a printout.",
        "unreadable": "{file} cannot be graded: {reason}.",
        "other": "{file} was written for scenario {other}, but yours is {code}: write your "
                 "diagnoses for your own bundle.",
        "titled": "{file} is titled for {other}, not for you: hand in your own diagnoses.",
        "empty": "{file} holds no diagnoses: no section for any ID (start each with a heading "
                 'such as "## 01").',
        "no_attempt": "Nothing was graded, so this upload is not an attempt: fix it and "
                      "upload again.",
        "upload": "Upload",
        "first": "Counted (your first attempt): {answer}, {verdict}.",
        "this": "This upload:",
    },
    "es": {
        "not_on_roster": "{who} no está en la lista de diagnose de este curso; pide a tu "
                         "profesor que te añada y te reparta un paquete.",
        "group": "Esta entrega nombra a varios estudiantes ({names}); cada estudiante entrega "
                 "su propio archivo de diagnósticos.",
        "no_file": "No se subió ningún archivo: sube el archivo de diagnósticos que guardó "
                   "diagnose (un archivo de texto .md).",
        "several": "Se subieron varios archivos ({names}); sube solo tu archivo de "
                   "diagnósticos.",
        "pdf": "{file} es un PDF; sube el archivo de diagnósticos en sí (el archivo de texto "
               ".md que guardó diagnose), no una impresión.",
        "unreadable": "{file} no se puede calificar: {reason}.",
        "other": "{file} se escribió para el escenario {other}, pero el tuyo es {code}: "
                 "escribe tus diagnósticos para tu propio paquete.",
        "titled": "{file} lleva el título de {other}, no el tuyo: entrega tus propios "
                  "diagnósticos.",
        "empty": "{file} no contiene diagnósticos: ninguna sección para ningún ID (empieza "
                 "cada una con un título como «## 01»).",
        "no_attempt": "No se calificó nada, así que esta entrega no es un intento: corrígela y "
                      "vuelve a subirla.",
        "upload": "Entrega",
        "first": "Cuenta (tu primer intento): {answer}, {verdict}.",
        "this": "Esta entrega:",
    },
}


def tell(lang: str, key: str, **values: object) -> str:
    return TEXTS[lang][key].format(**values)


class Refused(GradeError):
    """An upload that cannot be graded; `key` and `values` say why in the student's language."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(tell("en", key, **values))
        self.key, self.values = key, values

    def say(self, lang: str) -> str:
        return tell(lang, self.key, **self.values)


# --- the course, as packed by `diagnose gradescope-autograder` ------------------------------

@dataclass(frozen=True)
class Entry:
    """One student of the class: their scenario, its key, and their feedback numbers."""

    student: str
    code: str
    email: str
    lang: str
    key: bytes
    evidence: Mapping[str, Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Course:
    folder: Path
    visibility: str
    lang: str
    entries: tuple[Entry, ...]

    def workspace(self, entry: Entry) -> Path:
        return self.folder / BUNDLES / entry.student

    def named(self, name: str) -> Entry | None:
        """The student a name names (`student_key`), else None."""
        key = student_key(name)
        return next((e for e in self.entries if student_key(e.student) == key), None)


def read_manifest(path: Path) -> list[dict[str, str]]:
    """The rows of a bundles folder's `manifest.csv` as dicts (student, code, then any of
    email, level, lang); the first two columns are positional, as every grader reads them.
    (`grading.gradebook.read_manifest` reads the first two only, for the class grader.)"""
    text = read_small_text(path, "a manifest", 16 * 1024 * 1024, error=GradeError)
    try:
        rows = [r for r in loads_csv(text) if r[0].strip()]
    except ValueError as err:
        raise GradeError(f"{path}: not a manifest ({err})") from None
    header = ["student", "code"]
    if rows and rows[0][0].strip().lower() == "student":
        header = [c.strip().lower() for c in rows[0]]
        rows = rows[1:]
    header[:2] = ["student", "code"]
    return [{name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
            for row in rows]


def load_course(source: Path) -> Course:
    folder = Path(source) / COURSE
    try:
        data = loads_json(read_small_text(folder / SETTINGS, "autograder settings",
                                          SETTINGS_MAX, error=GradeError))
        if data.get("schema") != SCHEMA:
            raise GradeError(f"{folder / SETTINGS}: not {SCHEMA}; rebuild the autograder zip")
        entries = tuple(Entry(s["student"], s["code"], s.get("email", ""), s["lang"],
                              s["key"].encode("ascii"), s.get("evidence") or {})
                        for s in data["students"])
        if data["visibility"] not in VISIBILITIES or any(
                lang not in LANGS for lang in (data["lang"], *(e.lang for e in entries))):
            raise ValueError("visibility or language")
        return Course(folder, data["visibility"], data["lang"], entries)
    except (KeyError, TypeError, AttributeError, ValueError) as err:
        raise GradeError(f"{folder / SETTINGS}: corrupt ({type(err).__name__}); rebuild the "
                         "autograder zip") from None


def _loose(name: str) -> str:
    """A name's key with separators ignored: Gradescope says `Ana García`, a bundle `ana-garcia`."""
    return "".join(c for c in student_key(name) if c.isalnum())


def find_student(users: Sequence[Mapping[str, Any]], course: Course) -> Entry:
    """The roster's student who submitted: by email, else by name (`student_key`)."""
    found: dict[str, Entry] = {}
    for user in users:
        email = str(user.get("email") or "").strip().casefold()
        name = str(user.get("name") or "")
        match = next((e for e in course.entries if email and e.email.casefold() == email), None)
        match = match or (course.named(name) if name else None)
        if match is None and name:
            loose = [e for e in course.entries if _loose(e.student) == _loose(name)]
            match = loose[0] if len(loose) == 1 else None
        if match is not None:
            found[match.student] = match
    if len(found) > 1:
        raise Refused("group", names=", ".join(sorted(found)))
    if not found:
        who = ", ".join(str(u.get("name") or u.get("email") or "?") for u in users) or "?"
        raise Refused("not_on_roster", who=who)
    return next(iter(found.values()))


# --- the upload ------------------------------------------------------------------------------

def find_upload(folder: Path) -> Path:
    """The one file the student uploaded (any name); Refused when there is none or several."""
    files = sorted(p for p in Path(folder).rglob("*") if p.is_file()
                   and not any(part.startswith(".") or part == "__MACOSX"
                               for part in p.relative_to(folder).parts))
    if not files:
        raise Refused("no_file")
    texts = [p for p in files if p.suffix.lower() in (".md", ".markdown", ".txt")]
    if len(files) > 1 and len(texts) != 1:
        raise Refused("several", names=", ".join(p.name for p in files[:5]))
    return texts[0] if len(files) > 1 else files[0]


def read_upload(file: Path, level: int = 1) -> Reading:
    """The upload read in the words of `level`'s deck (its bundle's), or Refused saying why."""
    data = read_small(file, "a diagnoses file", MAX_BYTES, error=GradeError)
    if data.startswith(b"%PDF"):
        raise Refused("pdf", file=file.name)
    try:
        reading = parse_diagnoses(data, source=file.name, level=level)
    except GradeError as err:
        raise Refused("unreadable", file=file.name,
                      reason=str(err).removeprefix(f"{file.name}: ")) from None
    if not reading.answers:  # the wrong file: not worth the student's first attempt
        raise Refused("empty", file=file.name)
    return reading


# --- attempts: the first graded upload counts ------------------------------------------------

def _mac(key: bytes, record: Mapping[str, Any]) -> str:
    body = json.dumps({k: v for k, v in record.items() if k != "mac"}, sort_keys=True,
                      ensure_ascii=False)
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def attempt_record(entry: Entry, reading: Reading, file: str, time: str,
                   results: Sequence[Result]) -> dict[str, Any]:
    record = {"schema": ATTEMPT_SCHEMA, "code": entry.code, "time": time, "file": file,
              "sha256": reading.sha256, "score": sum(r.correct for r in results),
              "max_score": len(results), "answers": {r.id: r.answer.slug for r in results},
              "correct": [r.id for r in results if r.correct]}
    return {**record, "mac": _mac(entry.key, record)}


def _when(submission: Mapping[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(submission.get("submission_time")))
    except ValueError:
        return None


def first_attempt(previous: Sequence[Any], entry: Entry) -> dict[str, Any] | None:
    """The earliest earlier upload graded for this scenario whose record is intact."""
    graded = []
    for order, submission in enumerate(previous):
        if not isinstance(submission, dict):
            continue
        results = submission.get("results")
        extra = results.get("extra_data") if isinstance(results, dict) else None
        record = extra.get("diagnose") if isinstance(extra, dict) else None
        if (isinstance(record, dict) and record.get("schema") == ATTEMPT_SCHEMA
                and record.get("code") == entry.code
                and hmac.compare_digest(str(record.get("mac")), _mac(entry.key, record))):
            when = _when(submission)
            graded.append((when is None, when.timestamp() if when else 0.0, order, record))
    return min(graded, key=lambda g: g[:3])[3] if graded else None


# --- results.json ----------------------------------------------------------------------------

def _feedback(result: Result) -> str:
    """A result's feedback as text lines (Gradescope shows a test's output in a <pre>)."""
    lines = [result.reading, result.verdict]
    if result.panels:
        lines += [say(result.lang, "panels"), *(f"- {p}" for p in result.panels)]
    if result.numbers:
        lines += [say(result.lang, "this_run"), *(f"- {n}" for n in result.numbers)]
    return "\n".join(lines)


def _tests(course: Course, counted: Mapping[str, Any], lang: str,
           this: Sequence[Result] = (), counts_now: bool = False) -> list[dict[str, Any]]:
    """One test per ID, scored by the counting attempt; the feedback is this upload's."""
    graded = {r.id: r for r in this}
    tests = []
    for run_id in sorted(counted["answers"]):
        right = run_id in counted["correct"]
        if counts_now:
            output = _feedback(graded[run_id])
        else:
            verdict = say(lang, "verdict.right" if right else "verdict.wrong")
            output = tell(lang, "first", answer=counted["answers"][run_id] or "—",
                          verdict=verdict)
            if run_id in graded:
                output += "\n\n" + tell(lang, "this") + "\n" + _feedback(graded[run_id])
        tests.append({"name": run_id, "score": int(right), "max_score": 1,
                      "status": "passed" if right else "failed", "output": output,
                      "output_format": "text", "visibility": course.visibility})
    return tests


def grade_upload(root: Path) -> dict[str, Any]:
    """The results.json for the submission under `root` (Gradescope's /autograder)."""
    course = load_course(root / "source")
    metadata = _metadata(root)
    lang = course.lang
    entry: Entry | None = None
    first: dict[str, Any] | None = None
    try:
        entry = find_student(metadata.get("users") or [], course)
        lang = entry.lang
        first = first_attempt(metadata.get("previous_submissions") or [], entry)
        file = find_upload(root / "submission")
        reading = read_upload(file, read_scenario(course.workspace(entry)).level)
        other = [c for c in reading.codes if not same_code(c, entry.code)]
        if other:
            raise Refused("other", file=file.name, other=other[0], code=entry.code)
        titled = reading.name and course.named(reading.name)
        if titled and titled != entry:  # a classmate's file, title and all
            raise Refused("titled", file=file.name, other=titled.student)
    except Refused as refused:
        return _refusal(course, refused.say(lang), first, lang)
    scenario = read_scenario(course.workspace(entry))
    sealed = read_small_text(scenario.path / KEY_FILE, "an answer key", 64 * 1024,
                             error=GradeError)
    try:
        assignment = unseal_scenario(sealed, entry.key, entry.code)
    except SealError as err:
        raise GradeError(f"{entry.student}: {err}; rebuild the autograder zip") from None
    from scenarios import breaks

    results = score(reading, assignment, breaks(scenario.level), lang=lang,
                    evidence=entry.evidence)
    time = str(metadata.get("created_at") or "")
    record = attempt_record(entry, reading, file.name, time, results)
    if first is None:
        counted, standing = record, say(lang, "counts")
        tests = _tests(course, record, lang, results, counts_now=True)
    else:
        counted = first
        standing = say(lang, "later", score=first["score"], max=first["max_score"],
                       date=str(first.get("time", ""))[:10], n=_count(metadata, entry) + 1)
        tests = _tests(course, first, lang, results)
    lines = [say(lang, "header", code=entry.code, file=file.name),
             say(lang, "score", score=counted["score"], max=counted["max_score"]), standing,
             *notes(reading, scenario.ids, lang)]
    return {"score": counted["score"], "output": "\n".join(lines), "output_format": "text",
            "visibility": course.visibility, "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"diagnose": record}}


def _count(metadata: Mapping[str, Any], entry: Entry) -> int:
    """How many earlier uploads of this student were graded (attempts)."""
    count = 0
    for submission in metadata.get("previous_submissions") or []:
        if first_attempt([submission], entry) is not None:
            count += 1
    return count


def _refusal(course: Course, message: str, first: Mapping[str, Any] | None,
             lang: str) -> dict[str, Any]:
    """A failing result the student sees at once; an earlier counting attempt still counts."""
    upload = {"name": tell(lang, "upload"), "score": 0, "max_score": 0, "status": "failed",
              "output": message + "\n" + tell(lang, "no_attempt"), "output_format": "text",
              "visibility": "visible"}
    lines = [message, tell(lang, "no_attempt")]
    if first is None:
        return {"score": 0, "output": "\n".join(lines), "output_format": "text",
                "visibility": "visible", "stdout_visibility": "hidden", "tests": [upload]}
    lines.append(say(lang, "score", score=first["score"], max=first["max_score"]))
    return {"score": first["score"], "output": "\n".join(lines), "output_format": "text",
            "visibility": course.visibility, "stdout_visibility": "hidden",
            "tests": [upload, *_tests(course, first, lang)]}


def _metadata(root: Path) -> dict[str, Any]:
    path = root / "submission_metadata.json"
    try:
        data = loads_json(read_small_text(path, "submission metadata", METADATA_MAX,
                                          error=GradeError))
    except ValueError:
        raise GradeError(f"{path}: not JSON") from None
    if not isinstance(data, dict):
        raise GradeError(f"{path}: not a JSON object")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """`run_autograder`'s body: grade, write results.json, say what happened on stdout (which
    Gradescope shows to instructors only)."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0] if args else os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    results_file = root / "results" / "results.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    status = 0
    try:
        results = grade_upload(root)
    except GradeError as err:  # the autograder itself is broken: say so to everyone
        results = {"score": 0, "output": f"The autograder could not grade this upload: {err}",
                   "output_format": "text", "visibility": "visible", "tests": []}
        status = 1
    except Exception:  # noqa: BLE001 - a bug; the student still gets a result
        traceback.print_exc()
        results = {"score": 0, "output": "The autograder failed; your instructor has been "
                   "shown why.", "output_format": "text", "visibility": "visible", "tests": []}
        status = 1
    atomic_write(results_file, json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    print(f"diagnose autograder: score {results['score']}; {results_file}")
    if status:
        print(results["output"], file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

