"""Dealing a class: a roster, one sealed bundle per student, and the instructor's manifest.

`plan_deal` checks every refusal first; then `carry_out` trains every student's scenario on the
instructor's machine with one pool of worker processes (or on a Dask cluster) and seals each
bundle with the instructor's key, which never leaves them. A bundle
is written whole or not at all, so an interrupted deal resumes where it stopped: bundles
already sealed with the same key are kept. The bundles folder holds two files of its own:

- `deal-settings.json` (`SETTINGS_FILE`): the settings every bundle there was dealt with
  (steps, language, key fingerprint, engine version); a later deal into the folder with other
  settings is refused, saying which differ, so a class never mixes them; a dealt student's
  level is a setting of their own bundle: a later deal asking another is refused too. With the
  file deleted, what the bundles and the manifest say was dealt is the record
  (`dealt_settings`): a deal that differs from it is refused the same way;
- `manifest.csv` (read and written by `grading.manifest`): one row per student ever dealt
  there, in roster order (a later deal appends its new students in theirs). It only grows: a
  student missing from a later roster stays listed, and a student whose bundle was deleted is
  dealt again with the manifest's code, so the same scenario.

A roster is CSV: `name`, then optional `email`, `level` and `lang` columns (`level` is 1, 2 or
3, the deck that student is dealt; empty: `deal --level`, else 1; `lang` is the student's
feedback language, en or es, written to the manifest for the graders: the dashboards keep the
deal's `--lang`); a header row `name,email,level,lang` (any of them, name first) is optional,
and a plain one-name-per-line file is a roster too. Names are compared by
`scenarios.names.same_student` (UTS #39 skeletons: `Jose`, `José`, `ＪＯＳＥ`, Cyrillic `Јоѕе`
and Cherokee `ᎫᎾᏚᎬ` are one student), a name that mixes scripts or holds an invisible character
is refused (`scenarios.names.name_problem`), and names are kept in NFC, the form used for the
folder's name.

Not here: grading the class (`grading.gradebook`) and the training itself (`diagnose.scenario`).
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from diagnose.scenario import (
    ScenarioError,
    ScenarioSpec,
    TrainingCallbacks,
    TrainingPool,
    Workers,
    check_code,
    check_target,
    checks_runs,
    create_scenario,
    engine_version,
    new_code,
    redeal_message,
    workspace_lock,
    write_workspace,
)
from diagnose.workspace import (
    DEFAULT_DIR,
    Workspace,
    WorkspaceError,
    is_workspace,
    open_workspace,
)
from grading.layout import DEAL_SETTINGS, MANIFEST, MAX_STUDENTS
from grading.manifest import ManifestRow, read_manifest, write_manifest
from grading.seal import SealError, fingerprint, sealed_code, unseal
from scenarios import all_levels, first_level, healthy_config
from scenarios.files import atomic_write, loads_csv, loads_json, read_small_text
from scenarios.langs import LANGS
from scenarios.names import NameIndex, name_problem, same_student

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


def existing_bundle(target: Path, secret: bytes) -> Workspace | None:
    """The bundle this key already sealed at `target` (a resumed deal), else None."""
    if not is_workspace(target):
        return None
    try:
        workspace = open_workspace(target)
        text = workspace.sealed_text()
        if sealed_code(text) != workspace.code:
            raise SealError("mismatch")
        unseal(text, secret, workspace.code)
    except (WorkspaceError, SealError):
        raise ScenarioError(f"{target}: a scenario is already here, not sealed with this key; "
                            "deal into another --out folder") from None
    return workspace


# --- the bundles folder's own files --------------------------------------------------------

SETTING_NAMES = {"steps": "--steps", "lang": "--lang", "key": "key fingerprint",
                 "engine_version": "engine version"}
DASHBOARD_LANG = re.compile(r'<html lang="([a-z]{2})">')


def deal_settings(secret: bytes, steps: int, lang: str) -> dict[str, object]:
    """What every bundle of one folder shares; `level` joins it with levelled scenarios."""
    return {"schema": SETTINGS_SCHEMA, "steps": steps, "lang": lang,
            "key": fingerprint(secret), "engine_version": engine_version()}


def _refuse(out: Path, differ: Sequence[str], why: str = "") -> ScenarioError:
    return ScenarioError(f"{out}: dealt with other settings ({'; '.join(differ)}){why}; deal "
                         "with the same settings or into another --out folder")


def _dashboard_lang(workspace: Workspace) -> str | None:
    """The language a bundle's dashboards were written in (their `<html lang>`), if legible."""
    path = workspace.dashboard_path("reference")
    try:
        with path.open("rb") as head:
            found = DASHBOARD_LANG.search(head.read(256).decode("utf-8", "replace"))
    except OSError:
        return None
    return found[1] if found else None


def dealt_settings(out: Path, wanted: dict[str, object], secret: bytes) -> list[str]:
    """How the bundles already in `out` differ from `wanted`, each said once with the first
    bundle that shows it: what they record is what was dealt when `deal-settings.json` is gone
    (steps and engine version from scenario.json, the language from the dashboards, the key
    from the seal)."""
    differ: dict[str, str] = {}
    folders = sorted(p for p in out.iterdir() if p.is_dir()) if out.is_dir() else []
    for folder in folders:
        target = folder / DEFAULT_DIR
        if not is_workspace(target):
            continue
        try:
            workspace = open_workspace(target)
        except WorkspaceError:
            continue  # a student's own broken bundle is said when that student is dealt
        found: dict[str, object] = {"steps": workspace.steps,
                                    "engine_version": workspace.engine_version,
                                    "lang": _dashboard_lang(workspace) or wanted["lang"]}
        try:
            existing_bundle(target, secret)
        except ScenarioError:
            found["key"] = "another key"
        for name, value in found.items():
            if name not in differ and value != wanted[name]:
                differ[name] = (f"{SETTING_NAMES[name]} {value} in {folder.name}, "
                                f"{wanted[name]} now")
    return list(differ.values())


def check_settings(out: Path, wanted: dict[str, object], secret: bytes) -> bool:
    """Refuse a deal whose settings differ from the folder's; True when none are recorded yet.

    Without `deal-settings.json` (never written, or deleted) the bundles are the record
    (`dealt_settings`); the file is then written again only when they agree with this deal.
    """
    path = Path(out) / SETTINGS_FILE
    if not path.exists():
        differ = dealt_settings(Path(out), wanted, secret)
        if differ:
            raise _refuse(out, differ, f", as its bundles say ({SETTINGS_FILE} is missing)")
        return True
    text = read_small_text(path, "deal settings", 64 * 1024, error=ScenarioError)
    try:
        recorded = loads_json(text)
    except ValueError:
        recorded = None
    if not isinstance(recorded, dict) or recorded.get("schema") != SETTINGS_SCHEMA:
        raise ScenarioError(f"{path}: corrupt (expected schema {SETTINGS_SCHEMA}); deal into "
                            "another --out folder")
    differ = [f"{SETTING_NAMES.get(k, k)} {recorded.get(k)} here, {v} now"
              for k, v in wanted.items() if recorded.get(k) != v]
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
    for student in students:
        target = bundle_dir(out, student.name)
        student = student._replace(level=student.level or str(level))
        existing = existing_bundle(target, secret)
        dealt = listed.get(student.name, ManifestRow(student.name, ""))
        code, dealt_level = dealt.code, dealt.level
        if existing is not None:
            codes.add(existing.code)
            code, dealt_level = existing.code, str(existing.level)
        else:
            check_target(target, force=False)
            if code:
                kept[student.name] = check_code(code)
        if dealt_level and dealt_level != student.level:  # a setting: a dealt student keeps it
            raise ScenarioError(f"{out}: {student.name} was dealt level {dealt_level}, "
                                f"not {student.level}; deal with the same settings or into "
                                "another --out folder")
        bundles.append((student, target, existing.code if existing is not None else None))
    return DealPlan(out, steps, lang, settings, new_folder, listed, bundles, codes, kept)


def carry_out(plan: DealPlan, secret: bytes, *, jobs: int = 2,
              callbacks: TrainingCallbacks | None = None,
              on_student: Callable[[str, str, bool], None] | None = None,
              client: Any = None) -> list[tuple[str, str]]:
    """Train and seal the bundles `plan` still lacks; returns its roster's (student, code).

    `callbacks` hear every step and re-deal (its `should_stop` is not asked: Ctrl-C stops a
    deal); `on_student(student, code, resumed)` hears each bundle sealed or kept. With `client`
    (a Dask cluster's, from `diagnose.cluster.connect`) the students' scenarios train on its
    workers and their bundles are written here as they come back. A student the manifest
    already lists keeps its code. The manifest is written after each bundle, in roster order
    whatever order the bundles finish in.
    """
    callbacks = callbacks or TrainingCallbacks()
    out, steps, listed, used = plan.out, plan.steps, plan.listed, plan.codes
    out.mkdir(parents=True, exist_ok=True)
    if plan.new_folder:
        atomic_write(out / SETTINGS_FILE, json.dumps(plan.settings, indent=2) + "\n",
                     error=ScenarioError)
    rows: list[tuple[str, str]] = []
    order = list(dict.fromkeys([*listed, *(student.name for student, _, _ in plan.bundles)]))

    def fresh_code(student: RosterEntry) -> str:
        if student.name in plan.kept:
            return plan.kept[student.name]
        code = new_code()
        while code in used:
            code = new_code()
        used.add(code)
        return code

    def dealt(student: RosterEntry, code: str, resumed: bool) -> None:
        rows.append((student.name, code))
        before = listed.get(student.name, ManifestRow(student.name, code))
        listed[student.name] = ManifestRow(student.name, code, student.email or before.email,
                                           student.level or before.level,  # plan_deal: one each
                                           student.lang or before.lang)  # a roster may omit them
        write_manifest(out, [listed[name] for name in order if name in listed])
        if on_student is not None:
            on_student(student.name, code, resumed)

    if client is not None:
        _deal_on_cluster(client, plan, secret, fresh_code, dealt, callbacks)
        return rows
    with TrainingPool(jobs) as pool:
        for student, target, code in plan.bundles:
            resumed = code is not None
            if code is None:
                code = fresh_code(student)
                spec = ScenarioSpec(code=code, steps=steps, lang=plan.lang, key="instructor",
                                    level=int(student.level))
                create_scenario(target, spec, secret=secret, callbacks=callbacks,
                                workers=Workers(pool=pool, prefix=f"{student.name}/"))
            dealt(student, code, resumed)
    return rows


def _deal_on_cluster(client: Any, plan: DealPlan, secret: bytes,
                     fresh_code: Callable[[RosterEntry], str],
                     dealt: Callable[[RosterEntry, str, bool], None],
                     callbacks: TrainingCallbacks) -> None:
    """Train the new bundles on the cluster; write each one as it comes back, as `carry_out`
    does."""
    from diagnose import cluster

    orders, students = [], {}
    for student, target, code in plan.bundles:
        if code is not None:
            dealt(student, code, True)
        else:
            orders.append(cluster.Order(student.name, target, fresh_code(student),
                                        int(student.level)))
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
                                    key="instructor", level=order.level)
                write_workspace(order.target, spec, secret=secret, deal=trained.deal,
                                records=trained.records)
            dealt(students[order.student], order.code, False)
