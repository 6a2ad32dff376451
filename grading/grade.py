"""Grading a diagnoses file against a workspace: its scenario, its sealed key, its attempts.

`grade_workspace` reads `<workspace>/scenario.json`, reads the diagnoses file, opens
`answer-key.sealed` with the secret, scores, and appends the attempt to `attempts.jsonl` (the
first genuine one counts; sealed in an instructor's bundle; `reveal.json` says whether the
answers were already shown). `check_file` reads
a file with no key at all. Both raise `GradeError`, one line, for anything the user must fix;
a file whose own name is not UTF-8 is refused before anything (`refuse_unprintable`): its
attempt record could not name it. `grade_reading` scores; `record_attempt` records in the
workspace, while a class grading records through the instructor's ledger (`gradebook.record`)
from `attempt_of`.

The workspace's file names (architecture §7) are `grading.layout`'s; `diagnose.workspace`,
which this package may not import, uses them too: `grading` runs on a server with neither
numpy nor the app. Revealing the solutions after a self-study grading is the app's job.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from grading.attempts import Attempt, Attempts, append_attempt, load_attempts, utc_stamp
from grading.diagnoses import GradeError, Reading, read_diagnoses
from grading.feedback import Check, Report, notes, score
from grading.layout import (
    DEFAULT_DIR,
    DEFAULT_IDS,
    KEY_FILE,
    REVEAL_FILE,
    RUN_ID,
    SCENARIO_FILE,
    SCENARIO_SCHEMA,
    printable,
)
from grading.policy import SHOWS_AT_ONCE, SHOWS_NOTHING, decide, repeat_of
from grading.seal import SEALERS, TAMPERED, SealedBy, SealError, unseal
from scenarios.files import loads_json, read_small_text
from scenarios.langs import LANGS
from scenarios.levels import LevelError, all_levels, first_level, level

SMALL_FILE_MAX = 64 * 1024  # scenario.json and the sealed key are a few hundred bytes
UNNAMED_LEVEL = 1  # the level of a scenario.json written before levels existed (it has none)


@dataclass(frozen=True)
class Scenario:
    """What `scenario.json` says: nothing about which break is where."""

    path: Path
    code: str
    ids: tuple[str, ...]
    key: str  # a SealedBy value: which secret sealed it
    steps: int
    engine_version: str
    level: int = UNNAMED_LEVEL  # the level its breaks were dealt from (architecture §5)


def scenario_json(code: str, ids: Sequence[str], steps: int, engine_version: str,
                  key: str, level: int) -> str:
    """The text of `scenario.json`, its level always written; `read_scenario` reads it back
    (a file without one, written before levels existed, is `UNNAMED_LEVEL`'s)."""
    data = {"schema": SCENARIO_SCHEMA, "code": code, "engine_version": engine_version,
            "steps": steps, "ids": list(ids), "key": key, "level": level}
    return json.dumps(data, indent=2) + "\n"


def read_scenario(path: Path) -> Scenario:
    """Read `path/scenario.json`, or raise GradeError saying what is wrong."""
    path = Path(path)
    file = path / SCENARIO_FILE
    try:
        if not path.exists():
            raise GradeError(f"{path}: no such directory")
        if not path.is_dir():
            raise GradeError(f"{path}: not a directory")
        if not file.is_file():
            raise GradeError(f"{path}: no scenario here ({SCENARIO_FILE} is missing)")
    except OSError as err:  # a name too long, a folder we may not enter
        raise GradeError(f"{str(path)[:200]}: cannot be read ({err.strerror or err})") from None
    try:
        data = loads_json(read_small_text(file, "a scenario file", SMALL_FILE_MAX,
                                          error=GradeError))
    except ValueError:
        data = None
    ids = data.get("ids") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("schema") != SCENARIO_SCHEMA
            or not isinstance(data.get("code"), str) or not data["code"]
            or not isinstance(ids, list) or not ids
            or not all(isinstance(i, str) and RUN_ID.match(i) for i in ids)
            or data.get("key") not in SEALERS
            or not isinstance(data.get("steps"), int) or isinstance(data["steps"], bool)
            or data["steps"] < 1 or not isinstance(data.get("engine_version"), str)):
        raise GradeError(f"{file}: corrupt (expected schema {SCENARIO_SCHEMA} with code, ids, "
                         "steps, engine_version and key)")
    number = data.get("level", UNNAMED_LEVEL)
    try:
        level(number)
    except LevelError as err:
        raise GradeError(f"{file}: {err.message}", hint=err.hint) from None
    return Scenario(path, data["code"], tuple(ids), data["key"], data["steps"],
                    data["engine_version"], number)


def find_scenario(file: Path, default: Path = DEFAULT_DIR,
                  code: str | None = None) -> Path | None:
    """The workspace a diagnoses file belongs to: its folder, its folder's
    `experiments/19-break-it` (or another level's folder beside it), else `default`; with
    `code` (the file's scenario comment), the first of those holding that scenario, if any.
    None when none holds a scenario."""
    folder = Path(file).parent
    levels = [entry.folder(folder / DEFAULT_DIR) for entry in all_levels()]
    found = [c for c in (folder, *levels, Path(default)) if (c / SCENARIO_FILE).is_file()]
    if code is not None:
        for candidate in found:
            try:
                if same_code(read_scenario(candidate).code, code):
                    return candidate
            except GradeError:
                continue
    return found[0] if found else None


def code_key(code: str) -> str:
    """The form two scenario codes are compared in: spaces around and case ignored."""
    return code.strip().casefold()


def same_code(a: str, b: str) -> bool:
    return code_key(a) == code_key(b)


def _refuse_other_scenario(reading: Reading, code: str, file: Path) -> None:
    other = [c for c in reading.codes if not same_code(c, code)]
    if other:
        raise GradeError(f"{file}: written for scenario {other[0]}, but the answer key is for "
                         f"scenario {code}")


def open_key(scenario: Scenario, secret: bytes) -> dict[str, str]:
    """The assignment ID -> slug sealed in the workspace, or GradeError saying why not."""
    path = scenario.path / KEY_FILE
    if not path.is_file():
        raise GradeError(f"{path}: the answer key is missing")
    try:
        assignment = unseal(read_small_text(path, "an answer key", SMALL_FILE_MAX,
                                            error=GradeError), secret, scenario.code)
    except SealError as err:
        raise GradeError(f"{path}: {err}") from None
    if sorted(assignment) != sorted(scenario.ids):
        raise GradeError(f"{path}: {TAMPERED} (its IDs are not the scenario's)")
    return known_breaks(assignment, path)


def known_breaks(assignment: dict[str, str], path: Path) -> dict[str, str]:
    """`assignment` when the catalog holds every break it names, else GradeError: a course's
    own break is known only where its deck is named (`--deck DIR`, `DIAGNOSE_DECK`)."""
    from scenarios import breaks

    catalog = breaks(None)
    unknown = sorted(slug for slug in assignment.values() if slug not in catalog)
    if unknown:
        raise GradeError(f"{path}: the answer key deals {unknown[0]}, a break this catalog "
                         "does not hold", "a course deck's? name its folder: diagnose --deck "
                         "DIR ..., or DIAGNOSE_DECK=DIR")
    return assignment


def sealing(scenario: Scenario, secret: bytes) -> dict[str, Any]:
    """How this scenario's attempts are sealed: under the instructor's secret in a dealt bundle,
    not at all in self-study. Keyword arguments for `load_attempts` and `append_attempt`."""
    return {"secret": secret, "code": scenario.code} if scenario.key == SealedBy.INSTRUCTOR else {}


def history(scenario: Scenario, secret: bytes) -> Attempts:
    """The workspace's attempts as `grade_reading` trusts them."""
    return load_attempts(scenario.path, scenario.ids, **sealing(scenario, secret))


def refuse_unprintable(file: Path) -> None:
    """GradeError when the file's name is not UTF-8 text: its attempt record could not name it.
    The name is shown with escapes (`layout.printable`)."""
    name = Path(file).name
    if printable(name) != name:
        shown = printable(str(file), one_line=True)
        raise GradeError(f"{shown}: its name is not UTF-8 text (shown with \\x escapes); "
                         "nothing recorded", hint="rename the file and grade it again")


def attempt_of(report: Report, scenario: Scenario | None = None, *, by: str = "",
               collected: str = "") -> Attempt:
    """The attempt record of a grading (unnumbered, unsealed: `attempts.numbered` does that);
    `by` "instructor" or "self-study" (the scenario's key, when given)."""
    if not by:
        by = scenario.key if scenario is not None else "instructor"
    return Attempt(report.time, report.sha256, Path(report.file).name, report.score,
                   report.max_score, report.after_reveal, by,
                   {r.id: r.answer.slug for r in report.results},
                   tuple(r.id for r in report.results if r.correct), collected=collected)


Evidence = Callable[[Path], Mapping[str, Sequence[str]] | None]


@dataclass(frozen=True)
class GradeOptions:
    """How a grading speaks and when: the feedback's language; `evidence(workspace)`, each ID's
    sentences with that run's numbers, shown for a miss; the time stamped (now, when None)."""

    lang: str = "en"
    evidence: Evidence | None = None
    now: datetime | None = None
    # class grading: (each ID's numbers, or None; a note) for a scenario the deal derived,
    # from metrics whose sha256 was kept at deal time (`diagnose.classroom.grading`)
    class_evidence: Callable[[Any], tuple[Mapping[str, Sequence[str]] | None, str]] | None = None


def grade_reading(reading: Reading, file: Path, scenario: Scenario, secret: bytes,
                  options: GradeOptions | None = None,
                  previous: Attempts | None = None) -> Report:
    """Grade an already read file against a workspace's own key and attempts (self-study: the
    grading shows the answers, so the first graded attempt counts, and none made after
    `diagnose reveal`); nothing is recorded (`record_attempt` does it). `previous` replaces
    the workspace's own record of attempts."""
    refuse_unprintable(file)
    _refuse_other_scenario(reading, scenario.code, file)
    assignment = open_key(scenario, secret)
    previous = previous or history(scenario, secret)
    options = options or GradeOptions()
    evidence = options.evidence(scenario.path) if options.evidence else None
    return score_file(reading, file, Against(scenario.code, scenario.level, assignment, evidence),
                      options, Past(previous.records, SHOWS_AT_ONCE,
                                    after_reveal=(scenario.path / REVEAL_FILE).exists()))


@dataclass(frozen=True)
class Against:
    """What a file is scored against: scenario `code` at level `level`, its `assignment`
    (ID -> slug), and each run's numbers to quote for a miss (`evidence`)."""

    code: str
    level: int
    assignment: Mapping[str, str]
    evidence: Mapping[str, Sequence[str]] | None = None


@dataclass(frozen=True)
class Past:
    """A student's earlier `records` of a scenario and how the attempt policy reads them:
    `rule` (`policy.SHOWS_AT_ONCE` or `SHOWS_NOTHING`), the record from which on the answers
    had been shown (`shown_from`), the `void` ones, and whether this attempt comes after the
    answers were revealed to the student (`after_reveal`)."""

    records: Sequence[Attempt]
    rule: str
    shown_from: int | None = None
    void: Collection[int] = ()
    after_reveal: bool = False


def score_file(reading: Reading, file: Path, against: Against, options: GradeOptions,
               past: Past) -> Report:
    """Score a read file `against` a scenario, and place it among the student's `past`
    records under the attempt policy (`policy.decide`). The one scoring behind self-study,
    class grading and a single file graded with the instructor's key."""
    from scenarios import breaks

    code, level_number, assignment = against.code, against.level, against.assignment
    rule, shown_from, void, after_reveal = (past.rule, past.shown_from, past.void,
                                            past.after_reveal)
    lang = options.lang
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    refuse_unprintable(file)
    _refuse_other_scenario(reading, code, file)
    reading = reading.at_level(level_number)
    stamp = utc_stamp(options.now)
    results = score(reading, assignment, breaks(level_number), lang=lang,
                    evidence=against.evidence)
    records = tuple(past.records)
    repeat = repeat_of(records, reading.sha256)
    if repeat is not None:  # the same bytes again: no new attempt, where that one stands
        decision = decide(records, rule=rule, shown_from=shown_from, void=void)
        counts, number, shown = decision.counted == repeat, repeat + 1, repeat in (
            decision.after_shown)
        mine = records[repeat]
        after_reveal = mine.after_reveal
    else:
        this = Attempt(stamp, reading.sha256, Path(file).name, 0, 0, after_reveal, "", {}, ())
        decision = decide((*records, this), rule=rule, shown_from=shown_from, void=void)
        number = len(records) + 1
        counts, shown = decision.counted == len(records), len(records) in decision.after_shown
    counted = decision.counted if decision.counted is not None and not counts else None
    earlier = [i for i in range(len(records)) if i not in void and i != (number - 1)]
    replaced = None
    if counts and rule == SHOWS_NOTHING and repeat is None:
        replaced = next((i for i in reversed(earlier) if i not in decision.after_shown), None)
    return Report(code, str(file), stamp, reading.sha256, results, attempt=number,
                  after_reveal=after_reveal,
                  first=records[counted] if counted is not None else None,
                  notes=notes(reading, tuple(sorted(assignment)), lang), lang=lang,
                  counts=counts, rule=rule, shown=shown, repeat=repeat is not None,
                  replaces=records[replaced] if replaced is not None else None,
                  replaced_n=(replaced or 0) + 1,
                  counted_n=(counted or 0) + 1)


def record_attempt(report: Report, scenario: Scenario, secret: bytes) -> None:
    """Append `report`'s attempt to the workspace's `attempts.jsonl` (sealed in a bundle);
    a repeat of an earlier attempt's bytes is no attempt and records nothing."""
    if report.repeat:
        return
    try:
        append_attempt(scenario.path, attempt_of(report, scenario), **sealing(scenario, secret))
    except OSError as err:
        raise GradeError(f"{scenario.path}: cannot record the attempt "
                         f"({err.strerror or err})") from None


def grade_workspace(file: Path, workspace_dir: Path, secret: bytes,
                    options: GradeOptions | None = None, record: bool = True) -> Report:
    """Grade `file` against the scenario in `workspace_dir`, sealed under `secret`; the
    attempt is appended to the workspace's `attempts.jsonl` unless `record` is False."""
    reading = read_diagnoses(Path(file))
    scenario = read_scenario(Path(workspace_dir))
    report = grade_reading(reading, Path(file), scenario, secret, options)
    if record:
        record_attempt(report, scenario, secret)
    return report


def check_file(file: Path, code: str | None = None, ids: Sequence[str] = DEFAULT_IDS, *,
               lang: str = "en", reading: Reading | None = None, level: int = 1) -> Check:
    """Read `file` without a key: what each of `ids` was taken to mean, in `level`'s words.
    With `code`, a file whose scenario comment names another scenario is refused, as grading
    would. `reading`: the file already read, so it is not read twice."""
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    reading = (reading or read_diagnoses(Path(file))).at_level(level)
    if code is not None:
        _refuse_other_scenario(reading, code, Path(file))
    shown = code or (reading.codes[0] if reading.codes else None)
    return Check(str(file), shown, tuple(ids), reading, lang)


def check_against(file: Path, workspace: Path | None, *, lang: str = "en",
                  reading: Reading | None = None) -> Check:
    """`check_file` against the scenario in `workspace` (its code, IDs and level), or, with no
    scenario found (None), the default IDs in the first level's words: the one reading without
    a key behind `diagnose grade FILE --check` and the app's check of a bundle."""
    if workspace is None:
        return check_file(file, None, DEFAULT_IDS, lang=lang, reading=reading,
                          level=first_level().number)
    scenario = read_scenario(workspace)
    return check_file(file, scenario.code, scenario.ids, lang=lang, reading=reading,
                      level=scenario.level)
