"""Gradescope's `run_autograder`: grade one upload against the class's sealed keys, offline.

Gradescope runs this once per submission in a fresh container (docs/instructors.md, "Gradescope").
It reads what `diagnose gradescope-autograder` packed into `<root>/source/course/` (the manifest,
each student's `scenario.json` and sealed key, one derived key per scenario, the feedback numbers),
who submitted from `<root>/submission_metadata.json`, the upload from `<root>/submission/`, and
writes `<root>/results/results.json`. `<root>` is `/autograder`, or `$AUTOGRADER_ROOT`.

The first graded upload counts (`grading.policy`, SHOWS_AT_ONCE: the autograder never learns
when grades are published, so every output says this rule), and the same bytes uploaded again
are no new attempt. Gradescope hands back the results of the latest previous submission
only, so every result carries the history forward in `extra_data`, sealed with an
HMAC under the scenario's key: the counted attempt, how many were graded, and this upload's own
(`history`). An upload that cannot be graded (a PDF, someone else's scenario, a file too big, a
student not on the roster) gets a failing result that says why, is not an attempt, and keeps
the counted score and the history; so does a run that fails on this upload's account.

stdlib + cryptography, like the rest of `grading`: the image needs neither numpy nor the app.
Not here: building the zip (`diagnose.classroom.gradescope`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grading.diagnoses import MAX_BYTES, GradeError, Reading, parse_diagnoses
from grading.feedback import (
    COUNTS,
    HEADER,
    LATER,
    PANELS_HEADING,
    REPEAT,
    SCORE,
    THIS_RUN,
    Result,
    notes,
    score,
    verdict,
)
from grading.grade import read_scenario, same_code
from grading.layout import GRADESCOPE_VISIBILITIES, KEY_FILE, printable
from grading.seal import SealError, unseal_scenario
from scenarios.escape import escape_json
from scenarios.files import atomic_write, loads_json, read_small, read_small_text
from scenarios.langs import LANGS
from scenarios.names import NameIndex, name_key
from scenarios.words import N_, say

COURSE = "course"  # inside the zip, and so inside /autograder/source
SETTINGS = "autograder.json"
BUNDLES = "bundles"
SCHEMA = "diagnose.autograder/1"
ATTEMPT_SCHEMA = "diagnose.gradescope-attempt/1"  # one upload's attempt
HISTORY_SCHEMA = "diagnose.gradescope-history/1"  # what every result carries forward
VISIBILITIES = GRADESCOPE_VISIBILITIES
SETTINGS_MAX = 64 * 1024 * 1024  # feedback numbers for a large class
METADATA_MAX = 16 * 1024 * 1024  # previous submissions carry their results

UNREADABLE = N_("{file} cannot be graded: {reason}.")
RULE = N_("Here your first graded upload counts: later uploads are graded and shown, and do not "
          "count.")
FAILED = N_("The autograder could not grade this upload; your instructor can see why. It is "
            "not an attempt.")


class Refused(GradeError):
    """An upload that cannot be graded; `message` (marked with `N_`) and `values` say why, in
    the student's language."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(say("en", message, **values))
        self.message, self.values = message, values

    def said_in(self, lang: str) -> str:
        return say(lang, self.message, **self.values)


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
        """The student a name names (`scenarios.names.same_student`), else None; Refused when
        it names two (a manifest dealt before the rule that tells them apart)."""
        found = NameIndex((e.student, e) for e in self.entries).find(name)
        if len(found) > 1:
            raise Refused(N_("{name} names several students of this course ({names}), who "
                             "look alike; ask your instructor to grade this upload by hand."),
                          name=printable(name, one_line=True),
                          names=", ".join(printable(e.student, one_line=True) for e in found))
        return found[0] if found else None


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
    return "".join(c for c in name_key(name) if c.isalnum())


def _seen(users: Sequence[Mapping[str, Any]]) -> str:
    """Who a submission names, as Gradescope said it: each user's name and email."""
    return printable(", ".join(
        " ".join(p for p in (str(u.get("name") or ""), f"<{u.get('email')}>"
                             if u.get("email") else "") if p) or "?"
        for u in users) or "?", one_line=True)


def find_student(users: Sequence[Mapping[str, Any]], course: Course) -> Entry:
    """The roster's student who submitted: by email (compared without case), else by name
    (`name_key`). One user only: a group submission is refused (one score per submission, one
    scenario per student), and so is an email two students of the roster share."""
    users = [u for u in users if isinstance(u, dict)] if isinstance(users, list) else []
    if len(users) > 1:
        raise Refused(N_("This submission has {n} users ({who}): diagnose grades one student's "
                         "own scenario per submission. Ask your instructor to turn groups off "
                         "and upload your file alone."), n=len(users), who=_seen(users))
    found: dict[str, Entry] = {}
    for user in users:
        email = str(user.get("email") or "").strip().casefold()
        name = str(user.get("name") or "")
        by_email = [e for e in course.entries if email and e.email.strip().casefold() == email]
        if len(by_email) > 1:
            raise Refused(N_("{who}: the roster gives this email to {names}; your instructor "
                             "must give each student their own."), who=_seen(users),
                          names=", ".join(e.student for e in by_email))
        match = by_email[0] if by_email else (course.named(name) if name else None)
        if match is None and name:
            loose = [e for e in course.entries if _loose(e.student) == _loose(name)]
            match = loose[0] if len(loose) == 1 else None
        if match is not None:
            found[match.student] = match
    if not found:
        raise Refused(N_("{who} is not on this course's diagnose roster; ask your instructor "
                         "to add you (this email) and deal you a bundle."), who=_seen(users))
    return next(iter(found.values()))


# --- the upload ------------------------------------------------------------------------------

def find_upload(folder: Path) -> Path:
    """The one file the student uploaded (any name); Refused when there is none or several."""
    files = sorted(p for p in Path(folder).rglob("*") if (p.is_file() or p.is_symlink())
                   and not any(part.startswith(".") or part == "__MACOSX"
                               for part in p.relative_to(folder).parts))
    if not files:
        raise Refused(N_("No file was uploaded: upload the diagnoses file diagnose saved (a .md "
                         "text file)."))
    texts = [p for p in files if p.suffix.lower() in (".md", ".markdown", ".txt")]
    if len(files) > 1 and len(texts) != 1:
        raise Refused(N_("Several files were uploaded ({names}); upload only your diagnoses "
                         "file."), names=", ".join(printable(p.name) for p in files[:5]))
    file = texts[0] if len(files) > 1 else files[0]
    inside = Path(folder).resolve()
    if (file.is_symlink() or not file.is_file()  # it would read a file of the server's
            or not file.resolve().is_relative_to(inside)):
        raise Refused(N_("{file} is not an ordinary file (a link or a device); upload the "
                         "diagnoses file itself."), file=printable(file.name))
    return file


def read_upload(file: Path, level: int = 1) -> Reading:
    """The upload read in the words of `level`'s deck (its bundle's), or Refused saying why."""
    name = printable(file.name)  # the student's own name for it, never the server's path
    if file.stat().st_size > MAX_BYTES:
        raise Refused(N_("{file} is over {size}: upload the diagnoses file diagnose saved (a "
                         "few KB of text)."), file=name, size=f"{MAX_BYTES // (1024 * 1024)} MiB")
    try:
        data = read_small(file, "a diagnoses file", MAX_BYTES, error=GradeError)
    except GradeError as err:
        raise Refused(UNREADABLE, file=name,
                      reason=printable(str(err)).rpartition(": ")[2]) from None
    if data.startswith(b"%PDF"):
        raise Refused(N_("{file} is a PDF; upload the diagnoses file itself (the .md text file "
                         "diagnose saved), not a printout."), file=name)
    try:
        reading = parse_diagnoses(data, source=name, level=level)
    except GradeError as err:
        raise Refused(UNREADABLE, file=name,
                      reason=printable(str(err)).removeprefix(f"{name}: ")) from None
    if not reading.answers:  # the wrong file: not worth the student's first attempt
        raise Refused(N_("{file} holds no diagnoses: no section for any ID (start each with a "
                         'heading such as "## 01").'), file=name)
    return reading


# --- the history: the first graded upload counts --------------------------------------------

@dataclass(frozen=True)
class History:
    """A student's uploads before this one, as their results carry it forward.

    `first` is the counted attempt (None: none yet), `attempts` how many uploads were graded,
    `confirmed` False once an earlier result could not be read back: then `first` is the score
    the results stood at (`kept`, no answers), every later result keeps it and says so, and
    the instructor confirms which attempt counts."""

    first: Mapping[str, Any] | None = None
    attempts: int = 0
    confirmed: bool = True


def _canonical(value: Any) -> Any:
    """JSON as it may come back from Gradescope: 3.0 for 3 must not break a seal."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _mac(key: bytes, record: Mapping[str, Any]) -> str:
    body = json.dumps(_canonical({k: v for k, v in record.items() if k != "mac"}),
                      sort_keys=True, ensure_ascii=False)  # as results carried it since /1
    return hmac.new(key, body.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def attempt_record(entry: Entry, reading: Reading, file: str, time: str,
                   results: Sequence[Result]) -> dict[str, Any]:
    record = {"schema": ATTEMPT_SCHEMA, "code": entry.code, "time": time, "file": file,
              "sha256": reading.sha256, "score": sum(r.correct for r in results),
              "max_score": len(results), "answers": {r.id: r.answer.slug for r in results},
              "correct": [r.id for r in results if r.correct]}
    return {**record, "mac": _mac(entry.key, record)}


def history_record(entry: Entry, after: History, upload: Mapping[str, Any] | None
                   ) -> dict[str, Any]:
    """What a result carries: the history after this upload, and this upload's own attempt
    (None: refused), sealed under the scenario's key."""
    record = {"schema": HISTORY_SCHEMA, "code": entry.code, "first": after.first,
              "attempts": after.attempts, "confirmed": after.confirmed, "upload": upload}
    return {**record, "mac": _mac(entry.key, record)}


def _is_attempt(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("score"), int | float)
            and isinstance(value.get("max_score"), int | float)
            and isinstance(value.get("answers"), dict) and isinstance(value.get("correct"), list))


def _sealed(submission: Mapping[str, Any], entry: Entry) -> dict[str, Any] | None:
    """The record a previous result carries for this scenario, if it is intact."""
    results = submission.get("results")
    extra = results.get("extra_data") if isinstance(results, dict) else None
    record = extra.get("diagnose") if isinstance(extra, dict) else None
    if not (isinstance(record, dict) and record.get("code") == entry.code
            and isinstance(record.get("mac"), str)
            and hmac.compare_digest(record["mac"], _mac(entry.key, record))):
        return None
    if record.get("schema") == ATTEMPT_SCHEMA and _is_attempt(record):
        return dict(_canonical(record))  # written before results carried the history: its own only
    if (record.get("schema") == HISTORY_SCHEMA and _whole(record.get("attempts"))
            and isinstance(record.get("confirmed"), bool)
            and all(r is None or _is_attempt(r) for r in (record.get("first"),
                                                           record.get("upload")))):
        return dict(_canonical(record))  # 3.0 is 3: Gradescope hands numbers back as floats
    return None


def _whole(value: Any) -> bool:
    """A count, whether Gradescope handed it back as 3 or 3.0."""
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and float(value).is_integer() and value >= 0)


def _when(submission: Mapping[str, Any]) -> float | None:
    try:
        return datetime.fromisoformat(str(submission.get("submission_time"))).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def chronological(previous: Any) -> list[dict[str, Any]]:
    """The previous submissions, oldest first (by time when every one has one, else as
    listed)."""
    submissions = [s for s in previous if isinstance(s, dict)] if isinstance(previous, list) \
        else []
    times = [_when(s) for s in submissions]
    if all(t is not None for t in times):
        order = sorted(range(len(submissions)), key=lambda i: (times[i], i))
        submissions = [submissions[i] for i in order]
    return submissions


def _failed_on_gradescope(submission: Mapping[str, Any]) -> bool:
    return submission.get("autograder_error") is True


def history(previous: Any, entry: Entry, max_score: int) -> History:
    """This student's history, from what Gradescope hands back (its `submission_metadata.json`):
    every earlier submission's time and score, but the results only of the latest, and
    `autograder_error` on runs that failed on Gradescope's side, which are not attempts.

    The latest result carries the history forward, so it is read there. Failing that (a
    result written before results carried it, or none at all), the history is rebuilt from
    the results that are present only when every earlier graded upload's result is. Else
    the first attempt cannot be confirmed: the score stays where the latest result that ran
    set it (every result's score is the counted one), never lower, never silently higher."""
    submissions = chronological(previous)
    if submissions:
        latest = submissions[-1]
        record = _sealed(latest, entry)
        if record is not None and record["schema"] == HISTORY_SCHEMA:
            first, attempts = record["first"], record["attempts"]
            if _failed_on_gradescope(latest) and record["upload"] is not None:
                attempts -= 1  # its own upload was no attempt
                first = None if first == record["upload"] else first
            return History(first, max(int(attempts), 0), record["confirmed"])
    counted = [s for s in submissions if not _failed_on_gradescope(s)]
    if any(not isinstance(s.get("results"), dict) for s in counted):
        kept = {"kept": True, "score": _last_score(previous), "max_score": max_score,
                "answers": {}, "correct": [], "time": ""}
        return History(kept, len(counted), confirmed=False)
    graded = []
    for submission in counted:
        record = _sealed(submission, entry)
        upload = (record.get("upload") if record and record["schema"] == HISTORY_SCHEMA
                  else record)
        if upload is not None:
            graded.append(upload)
    return History(graded[0] if graded else None, len(graded))


def _last_score(previous: Any) -> float:
    """The score of the latest submission that ran: what this course's results last set it to
    (the counted score), for a result that cannot tell whose upload it grades."""
    scored = [s["score"] for s in chronological(previous) if not _failed_on_gradescope(s)
              and isinstance(s.get("score"), int | float) and math.isfinite(s["score"])]
    last = scored[-1] if scored else 0
    return int(last) if float(last).is_integer() else last


def _carried_as_is(previous: Any) -> dict[str, Any] | None:
    """The latest result's record, unread: a refusal that cannot tell whose it is (a student
    not on the roster, a group) passes it on, so the history survives the refusal."""
    submissions = chronological(previous)
    results = submissions[-1].get("results") if submissions else None
    extra = results.get("extra_data") if isinstance(results, dict) else None
    record = extra.get("diagnose") if isinstance(extra, dict) else None
    return record if isinstance(record, dict) else None


# --- results.json ----------------------------------------------------------------------------

def _feedback(result: Result) -> str:
    """A result's feedback as text lines (Gradescope shows a test's output in a <pre>)."""
    lines = [result.reading, result.verdict]
    if result.panels:
        lines += [say(result.lang, PANELS_HEADING), *(f"- {p}" for p in result.panels)]
    if result.numbers:
        lines += [say(result.lang, THIS_RUN), *(f"- {n}" for n in result.numbers)]
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
            output = say(lang, "Counted (your first attempt): {answer}, {verdict}.",
                         answer=counted["answers"][run_id] or "—", verdict=verdict(lang, right))
            if run_id in graded:
                output += ("\n\n" + say(lang, "This upload:") + "\n"
                           + _feedback(graded[run_id]))
        tests.append({"name": run_id, "score": int(right), "max_score": 1,
                      "status": "passed" if right else "failed", "output": output,
                      "output_format": "text", "visibility": course.visibility})
    return tests


def grade_upload(root: Path) -> dict[str, Any]:
    """The results.json for the submission under `root` (Gradescope's /autograder).

    Once the student and their history are known, nothing that happens to this upload can
    lower the counted score or lose the history: a refusal, an unreadable file, even a bug
    gives a result that carries both forward."""
    course = load_course(root / "source")
    metadata = _metadata(root)
    previous = metadata.get("previous_submissions") or []
    try:
        entry = find_student(metadata.get("users") or [], course)
    except Refused as refused:  # whose upload it is, unknown: the latest score stands
        result = _refusal(course, refused.said_in(course.lang), course.lang, History(),
                          _carried_as_is(previous))
        return {**result, "score": _last_score(previous)}
    past = history(previous, entry, len(read_scenario(course.workspace(entry)).ids))
    try:
        return _graded(root, course, metadata, entry, past)
    except Refused as refused:
        message = refused.said_in(entry.lang)
    except Exception:  # noqa: BLE001 - the course's files or a bug: the history survives it
        traceback.print_exc(file=sys.stdout)  # Gradescope shows stdout to instructors only
        message = say(entry.lang, FAILED)
    return _refusal(course, message, entry.lang, past, history_record(entry, past, None))


def counts_now(past: History) -> bool:
    """Whether an upload graded now counts, by the one attempt policy (`policy.decide` with
    SHOWS_AT_ONCE: every result shows the answers as soon as grades are published)."""
    from grading.attempts import Attempt
    from grading.policy import SHOWS_AT_ONCE, decide

    upload = Attempt("", "", "", 0, 0, False, "instructor", {}, ())
    records = ([upload] if past.first is not None else []) + [upload]
    return decide(records, rule=SHOWS_AT_ONCE).counted == len(records) - 1


def _graded(root: Path, course: Course, metadata: Mapping[str, Any], entry: Entry,
            past: History) -> dict[str, Any]:
    lang = entry.lang
    file = find_upload(root / "submission")
    name = printable(file.name)
    scenario = read_scenario(course.workspace(entry))
    reading = read_upload(file, scenario.level)
    other = [c for c in reading.codes if not same_code(c, entry.code)]
    if other:
        raise Refused(N_("{file} was written for scenario {other}, but yours is {code}: write "
                         "your diagnoses for your own bundle."), file=name,
                      other=printable(other[0]), code=entry.code)
    titled = reading.name and course.named(reading.name)
    if titled and titled != entry:  # a classmate's file, title and all
        raise Refused(N_("{file} is titled for {other}, not for you: hand in your own "
                         "diagnoses."), file=name, other=titled.student)
    sealed = read_small_text(scenario.path / KEY_FILE, "an answer key", 64 * 1024,
                             error=GradeError)
    try:
        assignment = unseal_scenario(sealed, entry.key, entry.code)
    except SealError as err:
        raise GradeError(f"{entry.student}: {err}; rebuild the autograder zip") from None
    from scenarios import breaks

    results = score(reading, assignment, breaks(scenario.level), lang=lang,
                    evidence=entry.evidence)
    upload = attempt_record(entry, reading, name, printable(str(metadata.get("created_at")
                                                                 or "")), results)
    repeat = past.first is not None and past.first.get("sha256") == upload["sha256"]
    first = past.first
    if first is None or counts_now(past):
        after = History(upload, past.attempts + 1, past.confirmed)
        standing = [say(lang, COUNTS)]
        tests = _tests(course, upload, lang, results, counts_now=True)
    elif first.get("kept"):  # the history broke: graded, said, and not counted
        after = History(first, past.attempts + 1, past.confirmed)
        standing = [say(lang, "Your first attempt could not be confirmed (an earlier upload's "
                        "result was lost on Gradescope's side): your score stays at "
                        "{score}/{max} and this upload is graded below without counting; your "
                        "instructor will confirm which attempt counts.",
                        score=first["score"], max=first["max_score"])]
        tests = [{**test, "score": 0, "max_score": 0}  # at the instructor's visibility
                 for test in _tests(course, upload, lang, results, counts_now=True)]
    else:
        after = History(first, past.attempts + (0 if repeat else 1), past.confirmed)
        standing = [say(lang, REPEAT, n=1)] if repeat else []
        standing.append(say(lang, LATER, score=first["score"],
                            max=first["max_score"],
                            date=str(first.get("time", ""))[:10], n=past.attempts + 1))
        tests = _tests(course, first, lang, results)
    counted = after.first or upload  # set in every branch above
    lines = [say(lang, HEADER, code=entry.code, file=name),
             say(lang, SCORE, score=counted["score"], max=counted["max_score"]), *standing,
             say(lang, RULE), *notes(reading, scenario.ids, lang)]
    return {"score": counted["score"], "output": "\n".join(lines), "output_format": "text",
            "visibility": course.visibility, "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"diagnose": history_record(entry, after, upload)}}


def _refusal(course: Course, message: str, lang: str, past: History,
             carried: Mapping[str, Any] | None) -> dict[str, Any]:
    """A failing result the student sees at once; the counted attempt still counts, and the
    history rides on."""
    lines = [message] if message == say(lang, FAILED) else [
        message, say(lang, "Nothing was graded, so this upload is not an attempt: fix it and "
                           "upload again.")]
    lines.append(say(lang, RULE))
    upload = {"name": say(lang, "Upload"), "score": 0, "max_score": 0, "status": "failed",
              "output": "\n".join(lines), "output_format": "text", "visibility": "visible"}
    extra = {"diagnose": dict(carried)} if carried else {}
    if past.first is None:
        return {"score": 0, "output": "\n".join(lines), "output_format": "text",
                "visibility": "visible", "stdout_visibility": "hidden", "tests": [upload],
                "extra_data": extra}
    lines.append(say(lang, SCORE, score=past.first["score"], max=past.first["max_score"]))
    if not past.confirmed:
        lines.append(say(lang, "Your first attempt could not be confirmed; your instructor will "
                         "confirm which attempt counts."))
    return {"score": past.first["score"], "output": "\n".join(lines), "output_format": "text",
            "visibility": course.visibility, "stdout_visibility": "hidden",
            "tests": [upload, *_tests(course, past.first, lang)], "extra_data": extra}


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


def _broken(root: Path, lang: str = "en") -> dict[str, Any]:
    """The result when the autograder itself cannot grade (its zip or Gradescope's metadata):
    the latest graded submission's score and record ride on, so no upload lowers a score."""
    score: float = 0
    carried = None
    try:
        previous = _metadata(root).get("previous_submissions") or []
        score, carried = _last_score(previous), _carried_as_is(previous)
    except GradeError:
        pass
    return {"score": score, "output": say(lang, FAILED), "output_format": "text",
            "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
            "extra_data": {"diagnose": carried} if carried else {}}


def main(argv: Sequence[str] | None = None) -> int:
    """`run_autograder`'s body: grade, write results.json, say what happened on stdout (which
    Gradescope shows to instructors only). It exits 0 whenever results.json is written, even
    when the zip itself is broken: Gradescope would flag a failing run as its own error and
    the result that keeps the score would not count as this run's."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0] if args else os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    results_file = root / "results" / "results.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        results = grade_upload(root)
    except GradeError as err:  # the zip or the metadata: say why to the instructor only
        print(f"diagnose autograder: cannot grade: {printable(str(err))}")
        results = _broken(root)
    except Exception:  # noqa: BLE001 - a bug; the student still gets a result
        traceback.print_exc(file=sys.stdout)
        results = _broken(root)
    atomic_write(results_file, json.dumps(escape_json(results), ensure_ascii=False, indent=2)
                 + "\n")
    record = results.get("extra_data", {}).get("diagnose") or {}
    confirmed = "" if record.get("confirmed", True) else "; first attempt NOT confirmed"
    print(f"diagnose autograder: score {results['score']}{confirmed}; {results_file}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
