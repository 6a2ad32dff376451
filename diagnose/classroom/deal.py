"""Dealing a class: a roster, one sealed bundle per student, and the instructor's manifest.

`plan_deal` checks every refusal first; then `carry_out` trains every student's scenario on the
instructor's machine with one pool of worker processes (or on a Dask cluster) and seals each
bundle with the instructor's key, which never leaves them. A bundle
is written whole or not at all, so an interrupted deal resumes where it stopped: bundles
already sealed with the same key are kept. The bundles folder holds two files of its own:

- `deal-settings.json` (`SETTINGS_FILE`): the settings every bundle there was dealt with
  (steps, language, key fingerprint, engine version, and the deck: its folder and sha256); a
  later deal into the folder with other settings is refused, saying which differ, so a class
  never mixes them; a dealt student's level is the manifest's: a later deal asking another is
  refused too. A folder that holds a deal but not its settings is refused, saying how to
  restore them: the bundles are the students' copies, never the record;
- `manifest.csv` (read and written by `grading.manifest`): one row per student ever dealt
  there, in roster order (a later deal appends its new students in theirs). A student's row is
  written before their scenario trains, so a resumed deal decides from the manifest alone. It
  only grows: a student missing from a later roster stays listed, and a student whose bundle
  was deleted is dealt again with the manifest's code, so the same scenario;
- `deal-digests.json` (`grading.dealt.DIGESTS`): the sha256 of each dealt run's metrics, so a
  grading quotes only numbers that were dealt.

A bundle already in place is kept when it agrees with what the key and the manifest derive
(`grading.dealt.disagreements`), and reported and left alone when it does not: never read to
decide a code, a level or a setting.

A roster is CSV: `name`, then optional `email`, `level` and `lang` columns (`level` is 1, 2 or
3, the deck that student is dealt; empty: `deal --level`, else 1; `lang` is the student's
feedback language, en or es, written to the manifest for the graders: the dashboards keep the
deal's `--lang`); a header row `name,email,level,lang` (any of them, name first) is optional,
and a plain one-name-per-line file is a roster too. Names are compared by
`scenarios.names.same_student` (UTS #39 skeletons: `Jose`, `José`, `ＪＯＳＥ`, Cyrillic `Јоѕе`
and Cherokee `ᎫᎾᏚᎬ` are one student), a name that mixes scripts or holds an invisible character
is refused (`scenarios.names.name_problem`), and names are kept in NFC, the form used for the
folder's name.

Not here: grading the class (`grading.gradebook`) and the training itself
(`diagnose.game.scenario`).
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from diagnose.game.dealing import ScenarioError, check_code, checks_runs, new_code, redeal_message
from diagnose.game.scenario import (
    ScenarioSpec,
    check_target,
    create_scenario,
    engine_version,
    workspace_lock,
    write_workspace,
)
from diagnose.game.training import OnStep, Progress, TrainingCallbacks, TrainingPool, Workers
from diagnose.workspace import (
    DEFAULT_DIR,
    is_workspace,
)
from grading.dealt import run_ids
from grading.layout import DEAL_SETTINGS, MANIFEST, MAX_STUDENTS
from grading.manifest import ManifestRow, read_manifest, write_manifest
from grading.seal import SealedBy, fingerprint
from scenarios import all_levels, first_level, healthy_config
from scenarios.errors import UsageProblem
from scenarios.files import atomic_write, loads_csv, loads_json, read_small_text
from scenarios.langs import LANGS
from scenarios.names import NameIndex, name_problem, same_student

if TYPE_CHECKING:
    from diagnose.classroom.cluster import ClusterOptions

ROSTER_MAX_BYTES = 1024 * 1024
SETTINGS_FILE = DEAL_SETTINGS  # the graders find a deal folder by it too
SETTINGS_SCHEMA = "diagnose.deal/1"
ROSTER_COLUMNS = ("name", "email", "level", "lang")
# letters of any script, digits, dot, dash, underscore; no spaces, slashes or leading dot
SAFE_NAME = re.compile(r"^[^\W_][\w.-]{0,63}$")
# name@host.tld, read in linear time: the host is checked whole once, then its first dot found.
EMAIL = re.compile(r"^[^@\s,<>]++@(?=[^@\s,<>]++$)[^@\s,<>]+?\.[^@\s,<>]")
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
            *(f"lpt{i}" for i in range(10))}
FOLDER_FILES = (MANIFEST, SETTINGS_FILE)


def level_names() -> tuple[str, ...]:
    """The levels a roster's level column and `deal --level` may name (levels.toml's)."""
    return tuple(str(level.number) for level in all_levels())


class RosterEntry(NamedTuple):
    name: str        # NFC: the bundle's folder name
    email: str = ""
    level: str = ""
    lang: str = ""   # the student's feedback language; empty: the deal's


def check_name(name: str) -> str | None:
    """Why `name` is not a safe directory name, or None when it is."""
    if not SAFE_NAME.match(name):
        return ("use letters, digits, '.', '-' or '_' (no spaces or slashes), starting with a "
                "letter or digit, at most 64 characters")
    if name.split(".")[0].lower() in RESERVED:
        return "a reserved device name on Windows"
    if any(same_student(name, own) for own in FOLDER_FILES):
        return f"the bundles folder's own {MANIFEST} and {SETTINGS_FILE} use it"
    return name_problem(name)


def _roster_rows(path: Path, text: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of each row that is not blank or a `#` comment."""
    rows = []
    try:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = next(iter(loads_csv(line)), [])
            rows.append((number, [cell.strip() for cell in cells]))
    except ValueError as err:
        raise ScenarioError(f"{path}: not a CSV roster ({err})") from None
    return rows


def _one_email(emails: dict[str, tuple[str, int]], email: str, name: str, path: Path,
               number: int) -> None:
    """Keep `email` in `emails` (case-folded: Gradescope matches emails without case), or
    ScenarioError naming the line that has it already."""
    if not email:
        return
    if email.casefold() in emails:
        first, line = emails[email.casefold()]
        raise ScenarioError(f"{path}:{number}: {name!r} has the email {email!r}, as {first!r} has "
                            f"(line {line}); emails are compared without case: give each "
                            "student their own")
    emails[email.casefold()] = (name, number)


def read_roster(path: Path) -> list[RosterEntry]:
    """The students of a roster file (see the module docstring), each name checked once."""
    path = Path(path)
    text = read_small_text(path, "a roster file", ROSTER_MAX_BYTES, error=ScenarioError,
                           missing="no such roster file")
    rows = _roster_rows(path, text)
    columns = ROSTER_COLUMNS
    if rows and rows[0][1] and rows[0][1][0].casefold() == "name":
        number, header = rows.pop(0)
        unknown = [c for c in header if c.casefold() not in ROSTER_COLUMNS]
        if unknown or len(set(map(str.casefold, header))) != len(header):
            raise ScenarioError(f"{path}:{number}: a header row has the columns "
                                f"{','.join(ROSTER_COLUMNS)} (name first), got {','.join(header)}")
        columns = tuple(c.casefold() for c in header)
    students: list[RosterEntry] = []
    seen: NameIndex[tuple[str, int]] = NameIndex()
    emails: dict[str, tuple[str, int]] = {}
    for number, cells in rows:
        if len(cells) > len(columns):
            raise ScenarioError(f"{path}:{number}: expected at most {len(columns)} columns "
                                f"({','.join(columns)}), got {len(cells)}")
        fields = dict(zip(columns, cells, strict=False))
        name = unicodedata.normalize("NFC", fields.get("name", ""))
        problem = check_name(name)
        if problem:
            raise ScenarioError(f"{path}:{number}: {name!r} is not a safe directory name: "
                                f"{problem}")
        earlier = seen.find(name)
        if earlier:
            first, line = earlier[0]
            same = "repeats" if first.casefold() == name.casefold() else "is the same student as"
            raise ScenarioError(f"{path}:{number}: {name!r} {same} {first!r} (line {line}); "
                                "names must differ in more than case, accents, width or "
                                "letters that look alike")
        seen.add(name, (name, number))
        email, level = fields.get("email", ""), fields.get("level", "")
        lang = fields.get("lang", "")
        if email and not EMAIL.match(email):
            raise ScenarioError(f"{path}:{number}: {email!r} is not an email address")
        _one_email(emails, email, name, path, number)
        if level and level.strip() not in level_names():
            raise ScenarioError(f"{path}:{number}: level {level!r}: expected "
                                f"{', '.join(level_names())} (the deck to deal), or nothing")
        if lang and lang.casefold() not in LANGS:
            raise ScenarioError(f"{path}:{number}: lang {lang!r}: expected "
                                f"{', '.join(LANGS)} (the student's feedback language), or "
                                "nothing")
        if len(students) == MAX_STUDENTS:
            raise ScenarioError(f"{path}:{number}: more than {MAX_STUDENTS:,} students; deal "
                                "a class in several rosters and --out folders")
        students.append(RosterEntry(name, email, level.strip(), lang.casefold()))
    if not students:
        raise ScenarioError(f"{path}: no student names (one per line, or CSV with a name "
                            "column)")
    return students


def numbered_students(count: int) -> list[RosterEntry]:
    if not 1 <= count <= MAX_STUDENTS:
        raise ScenarioError(f"--count must be 1 to {MAX_STUDENTS:,}, got {count}")
    width = max(2, len(str(count)))
    return [RosterEntry(f"student-{i:0{width}d}") for i in range(1, count + 1)]


def bundle_dir(out: Path, student: str) -> Path:
    return Path(out) / student / DEFAULT_DIR


def bundle_agrees(out: Path, row: ManifestRow, secret: bytes) -> str | None:
    """Why the bundle of `row`'s student in `out` is not the scenario `row` deals, or None:
    compared with what the key and the row derive, never read to decide."""
    from grading.dealt import derive, disagreements
    from grading.diagnoses import GradeError

    try:
        said = disagreements(derive(secret, row, out), secret)
    except GradeError as err:
        return str(err)
    return "; ".join(said) or None


# --- the bundles folder's own files --------------------------------------------------------

SETTING_NAMES = {"steps": "--steps", "lang": "--lang", "key": "key fingerprint",
                 "engine_version": "engine version", "deck": "deck"}


def deal_settings(secret: bytes, steps: int, lang: str) -> dict[str, object]:
    """What every bundle of one folder shares: the deck (`grading.dealt.deck_record`) too."""
    from grading.dealt import deck_record

    return {"schema": SETTINGS_SCHEMA, "steps": steps, "lang": lang,
            "key": fingerprint(secret), "engine_version": engine_version(),
            "deck": deck_record()}


def _refuse(out: Path, differ: Sequence[str], why: str = "") -> ScenarioError:
    return ScenarioError(f"{out}: dealt with other settings ({'; '.join(differ)}){why}; deal "
                         "with the same settings or into another --out folder")


def holds_a_deal(out: Path) -> bool:
    """Whether `out` holds a deal already: its manifest, or any student's bundle folder."""
    out = Path(out)
    if not out.is_dir():
        return False
    return (out / MANIFEST).exists() or any(
        (folder / DEFAULT_DIR).exists() for folder in out.iterdir() if folder.is_dir())


def _shown_setting(name: str, value: object) -> str:
    if name == "deck" and isinstance(value, dict):
        from grading.dealt import PACKAGE_DECK

        return str(value.get("folder") or PACKAGE_DECK)
    return str(value)


def check_settings(out: Path, wanted: dict[str, object], secret: bytes) -> bool:
    """Refuse a deal whose settings differ from the folder's; True when none are recorded yet
    (a new folder). A folder that holds a deal without its `deal-settings.json` is refused:
    the bundles are the students' copies and never say what was dealt."""
    path = Path(out) / SETTINGS_FILE
    if not path.exists():
        if holds_a_deal(Path(out)):
            raise ScenarioError(
                f"{out}: holds a deal ({MANIFEST} or bundles) but not its {SETTINGS_FILE}; "
                "the bundles are the students' copies and never the record",
                hint=f"restore {SETTINGS_FILE} from your backup of this folder (it holds the "
                "deal's steps, language, key fingerprint, engine version and deck), or deal "
                "into another --out folder")
        return True
    text = read_small_text(path, "deal settings", 64 * 1024, error=ScenarioError)
    try:
        recorded = loads_json(text)
    except ValueError:
        recorded = None
    if not isinstance(recorded, dict) or recorded.get("schema") != SETTINGS_SCHEMA:
        raise ScenarioError(f"{path}: corrupt (expected schema {SETTINGS_SCHEMA}); deal into "
                            "another --out folder")
    differ = [f"{SETTING_NAMES.get(k, k)} {_shown_setting(k, recorded.get(k))} here, "
              f"{_shown_setting(k, v)} now"
              for k, v in wanted.items()
              if recorded.get(k) != v and not (k == "deck" and k not in recorded)]  # older
    if differ:
        raise _refuse(out, differ)
    return False


def listed_by_student(out: Path) -> dict[str, ManifestRow]:
    """The folder's manifest rows by student (`grading.manifest`); empty when it has none."""
    return {row.student: row for row in read_manifest(out)}


def _check_against_manifest(students: Sequence[RosterEntry],
                            listed: dict[str, ManifestRow]) -> None:
    """A roster name that is an already dealt student's in another spelling is refused."""
    dealt = NameIndex((name, name) for name in listed)
    for student in students:
        known = dealt.find(student.name)
        if known and student.name not in listed:
            raise ScenarioError(f"{student.name!r} is the same student as "
                                f"{' and '.join(map(repr, known))}, already dealt in "
                                f"{MANIFEST}; use that spelling")


# --- the deal --------------------------------------------------------------------------------

@dataclass
class DealPlan:
    """A deal checked before anything is trained or written: see `plan_deal`."""
    out: Path
    steps: int
    lang: str
    settings: dict[str, object]
    new_folder: bool
    listed: dict[str, ManifestRow]  # the manifest's rows, by student
    bundles: list[tuple[RosterEntry, Path, str | None]]  # code when already sealed here
    codes: set[str]
    # a student whose bundle is gone is dealt again under the manifest's code: same scenario
    kept: dict[str, str] = field(default_factory=dict)
    # a bundle that is not what the manifest deals: said, and left as it is
    left: list[str] = field(default_factory=list)


def plan_deal(out: Path, students: Sequence[RosterEntry | str], secret: bytes, *,
              steps: int | None = None, lang: str = "en", level: int | None = None
              ) -> DealPlan:
    """Every refusal a deal can make before training: settings, names, bundles in the way, a
    dealt student's level changed. `level`: the deck of a student whose roster row names none
    (default: the first level)."""
    level = first_level().number if level is None else level
    if str(level) not in level_names() or isinstance(level, bool):
        raise ScenarioError(f"--level must be one of {', '.join(level_names())}, got {level}")
    out = Path(out)
    students = [RosterEntry(s) if isinstance(s, str) else s for s in students]
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"{out}: exists and is not a directory")
    healthy = healthy_config()  # reads the whole catalog: a typo stops the deal here
    steps = healthy.steps if steps is None else steps
    settings = deal_settings(secret, steps, lang)
    listed = listed_by_student(out)
    new_folder = check_settings(out, settings, secret)
    _check_against_manifest(students, listed)
    bundles: list[tuple[RosterEntry, Path, str | None]] = []
    codes: set[str] = {row.code for row in listed.values()}
    kept: dict[str, str] = {}
    left: list[str] = []
    for student in students:
        target = bundle_dir(out, student.name)
        student = student._replace(level=student.level or str(level))
        row = listed.get(student.name)
        dealt_level = (row.level or "1") if row is not None else ""
        if dealt_level and dealt_level != student.level:  # a setting: a dealt student keeps it
            raise ScenarioError(f"{out}: {student.name} was dealt level {dealt_level}, "
                                f"not {student.level}; deal with the same settings or into "
                                "another --out folder")
        if is_workspace(target) or (target.exists() and not target.is_dir()):
            if row is None or not row.code:
                raise ScenarioError(f"{target}: a bundle {MANIFEST} does not list; it is never "
                                    "read to decide a deal", hint="move it aside and deal again")
            why = bundle_agrees(out, row, secret)
            if why is not None:  # said, never believed, never rewritten from
                left.append(f"{student.name}: {why}; left as it is (the manifest still deals "
                            f"{row.code}: move the folder aside and deal again to restore it)")
                continue
            bundles.append((student, target, row.code))
            continue
        check_target(target, force=False)
        if row is not None and row.code:
            kept[student.name] = check_code(row.code)
        bundles.append((student, target, None))
    return DealPlan(out, steps, lang, settings, new_folder, listed, bundles, codes, kept,
                    left)


class _Records:
    """The instructor's records a deal keeps as it goes (`carry_out`): the manifest, written
    for each student before they train, and each bundle's metrics digests (and re-deals),
    written once it is sealed. Nothing here reads a bundle."""

    def __init__(self, plan: DealPlan, on_student: Callable[[str, str, bool], None] | None
                 ) -> None:
        from grading.dealt import read_digests, read_redeals

        self.plan, self.on_student, self.out = plan, on_student, plan.out
        self.rows: list[tuple[str, str]] = []
        self.order = list(dict.fromkeys([*plan.listed,
                                         *(student.name for student, _, _ in plan.bundles)]))
        self.digests = {name: dict(runs) for name, runs in (read_digests(self.out) or {}).items()}
        self.redealt = {name: list(times) for name, times in read_redeals(self.out).items()}

    def fresh_code(self, student: RosterEntry) -> str:
        if student.name in self.plan.kept:
            return self.plan.kept[student.name]
        code = new_code()
        while code in self.plan.codes:
            code = new_code()
        self.plan.codes.add(code)
        return code

    def listing(self, student: RosterEntry, code: str) -> None:
        listed = self.plan.listed
        before = listed.get(student.name, ManifestRow(student.name, code))
        listed[student.name] = ManifestRow(student.name, code, student.email or before.email,
                                           student.level or before.level,  # plan_deal: one each
                                           student.lang or before.lang)  # a roster may omit them
        write_manifest(self.out, [listed[name] for name in self.order if name in listed])

    def dealt(self, student: RosterEntry, code: str, resumed: bool) -> None:
        from grading.attempts import utc_stamp
        from grading.dealt import metrics_digests, write_digests

        self.rows.append((student.name, code))
        if not resumed:  # only what this deal sealed: a bundle found here is never read
            level = all_levels_by_number()[int(student.level)]
            self.digests[student.name] = metrics_digests(
                bundle_dir(self.out, student.name), ("reference", *run_ids(level.runs)))
            if student.name in self.plan.kept:  # a lost bundle dealt again: the gradebook says so
                self.redealt.setdefault(student.name, []).append(
                    utc_stamp())
            write_digests(self.out, self.digests, self.redealt)
        if self.on_student is not None:
            self.on_student(student.name, code, resumed)


def carry_out(plan: DealPlan, secret: bytes, *, jobs: int = 2,
              callbacks: TrainingCallbacks | None = None,
              on_student: Callable[[str, str, bool], None] | None = None,
              client: Any = None) -> list[tuple[str, str]]:
    """Train and seal the bundles `plan` still lacks; returns its roster's (student, code).

    `callbacks` hear every step and re-deal (its `should_stop` is not asked: Ctrl-C stops a
    deal); `on_student(student, code, resumed)` hears each bundle sealed or kept. With `client`
    (a Dask cluster's, from `diagnose.classroom.cluster.connect`) the students' scenarios train on
    its
    workers and their bundles are written here as they come back. A student the manifest
    already lists keeps its code. A student's manifest row is written before their scenario
    trains (in roster order, whatever order the bundles finish in), so a resumed deal reads
    the manifest, never a bundle; each bundle's metrics digests are kept once it is sealed.
    """
    callbacks = callbacks or TrainingCallbacks()
    plan.out.mkdir(parents=True, exist_ok=True)
    if plan.new_folder:
        atomic_write(plan.out / SETTINGS_FILE, json.dumps(plan.settings, indent=2) + "\n",
                     error=ScenarioError)
    records = _Records(plan, on_student)
    planned = []
    for student, target, code in plan.bundles:
        resumed = code is not None
        code = code if resumed else records.fresh_code(student)
        records.listing(student, code)  # before it trains
        planned.append((student, target, code, resumed))
    if client is not None:
        _deal_on_cluster(client, plan, secret, planned, records.dealt, callbacks)
        return records.rows
    with TrainingPool(jobs) as pool:
        for student, target, code, resumed in planned:
            if not resumed:
                spec = ScenarioSpec(code=code, steps=plan.steps, lang=plan.lang,
                                    key=SealedBy.INSTRUCTOR, level=int(student.level))
                create_scenario(target, spec, secret=secret, callbacks=callbacks,
                                workers=Workers(pool=pool, prefix=f"{student.name}/"))
            records.dealt(student, code, resumed)
    return records.rows


def all_levels_by_number() -> dict[int, Any]:
    return {level.number: level for level in all_levels()}


def _deal_on_cluster(client: Any, plan: DealPlan, secret: bytes,
                     planned: Sequence[tuple[RosterEntry, Path, str, bool]],
                     dealt: Callable[[RosterEntry, str, bool], None],
                     callbacks: TrainingCallbacks) -> None:
    """Train the new bundles on the cluster; write each one as it comes back, as `carry_out`
    does."""
    from diagnose.classroom import cluster

    orders, students = [], {}
    for student, target, code, resumed in planned:
        if resumed:
            dealt(student, code, True)
        else:
            orders.append(cluster.Order(student.name, target, code, int(student.level)))
            students[student.name] = student
    results = cluster.train_on_cluster(client, orders, secret=secret, steps=plan.steps,
                                       check=checks_runs(plan.steps))
    with contextlib.closing(results):
        for trained in results:
            order = trained.order
            for failed in range(trained.redeals):
                if callbacks.on_redeal is not None:
                    callbacks.on_redeal(redeal_message(order.code, failed))
            if callbacks.on_step is not None:
                for run, records in trained.records.items():
                    for record in records:
                        callbacks.on_step(f"{order.student}/{run}", record)
            order.target.parent.mkdir(parents=True, exist_ok=True)
            with workspace_lock(order.target):
                check_target(order.target, force=False)
                spec = ScenarioSpec(code=order.code, steps=plan.steps, lang=plan.lang,
                                    key=SealedBy.INSTRUCTOR, level=order.level)
                write_workspace(order.target, spec, secret=secret, deal=trained.deal,
                                records=trained.records)
            dealt(students[order.student], order.code, False)


# --- `diagnose deal`: one call ---------------------------------------------------------------

@dataclass(frozen=True)
class DealOptions:
    """What `diagnose deal` was asked (`deal_class` does it): the key, the folder, exactly one
    of a roster file or a count of numbered students, and how to train (`cluster`: on a Dask
    cluster, else `jobs` processes here)."""

    key_file: Path
    out: Path
    roster: Path | None = None
    count: int | None = None
    steps: int | None = None
    jobs: int = 2
    level: int | None = None
    lang: str = "en"
    cluster: ClusterOptions | None = None

    def __post_init__(self) -> None:
        if (self.roster is None) == (self.count is None):
            raise UsageProblem("give exactly one of --roster FILE or --count N")


def _bars_left_out(make: Callable[[OnStep | None], Any], labels: Sequence[str], steps: int,
                   title: str) -> Any:
    return make(None)


@dataclass(frozen=True)
class DealReport:
    """How `deal_class` tells its caller what happens: `warning(line)` for a bundle left as
    it is or a worker that is not this diagnose; `student(name, code, resumed)` for each bundle
    sealed or kept; `redeal(message)` for a scenario trained again; and `progress(make, labels,
    steps, title)` (`diagnose.game.training.Progress`), which runs `make(on_step)` under the
    caller's progress display and returns its result (by default none: `make(None)`); a deal
    names no labels: its runs are known as they start."""

    warning: Callable[[str], None] = lambda line: None
    student: Callable[[str, str, bool], None] | None = None
    redeal: Callable[[str], None] | None = None
    progress: Progress = _bars_left_out


@dataclass(frozen=True)
class Dealt:
    """A deal done: its roster's (student, code), the folder and how long it took."""

    rows: list[tuple[str, str]]
    out: Path
    seconds: float

    @property
    def manifest(self) -> Path:
        return self.out / MANIFEST


def deal_class(options: DealOptions, report: DealReport = DealReport()) -> Dealt:
    """Deal a class as `options` say: read the key and the students, plan (every refusal before
    anything is trained), connect to the cluster when one is named (and close it however the
    deal ends), then train and seal each bundle. Ctrl-C (a KeyboardInterrupt) passes through:
    the bundles sealed so far are kept, and the same call deals the rest."""
    import time

    from grading.seal import read_key_file

    started = time.perf_counter()
    secret = read_key_file(options.key_file)
    students = (read_roster(options.roster) if options.roster is not None
                else numbered_students(options.count or 0))
    plan = plan_deal(options.out, students, secret, steps=options.steps, lang=options.lang,
                     level=options.level)
    for line in plan.left:
        report.warning(line)
    with _cluster_opened(options.cluster, report.warning) as client:
        rows = report.progress(
            lambda on_step: carry_out(
                plan, secret, jobs=options.jobs, on_student=report.student, client=client,
                callbacks=TrainingCallbacks(on_step, on_redeal=report.redeal)),
            [], plan.steps, f"dealing {len(students)} scenarios")
    return Dealt(rows, options.out, time.perf_counter() - started)


def _cluster_opened(options: ClusterOptions | None, on_warning: Callable[[str], None]
                    ) -> contextlib.AbstractContextManager[Any]:
    if options is None:
        return contextlib.nullcontext()
    from diagnose.classroom.cluster import opened

    return opened(options, on_warning)
