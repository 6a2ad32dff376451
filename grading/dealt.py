"""What a deal dealt, derived from the instructor's records alone: the class's trust boundary.

In class mode the grader's inputs are the instructor's key, the deal folder's `manifest.csv`,
`deal-settings.json`, `deal-digests.json` and the attempts ledger, and the file a student hands
in: nothing else. A student's scenario (its IDs, level, deck and truth) is derived here from the
key and the manifest's row exactly as `diagnose deal` derived it: the HMAC of the code picks
the arrangement of the level's deck (`assignment`, the one definition, which the dealer uses
too). A row without `level` is level 1. The bundle is the student's copy, written by the
dealer and never read back to decide: `disagreements` says how a bundle differs from what the
instructor's side derives, to report it, never to believe it.

Also here: the deck a deal used (`deck_record`: its folder and a sha256 of its files, kept in
the settings), and the sha256 of each run's metrics kept at deal time (`deal-digests.json`), so
the feedback a grading quotes comes from the metrics that were dealt.

stdlib only (and `scenarios` for the levels), like the rest of `grading`. Not here: training
(`diagnose.game.scenario`), writing the folder's files (`diagnose.classroom.deal`), grading
(`gradebook`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grading.diagnoses import GradeError
from grading.layout import DEAL_SETTINGS, DEFAULT_DIR, KEY_FILE, SCENARIO_FILE
from grading.manifest import ManifestRow
from scenarios.errors import UserError
from scenarios.files import atomic_write, loads_json, read_small_text

DIGESTS = "deal-digests.json"  # beside the manifest: each dealt run's metrics sha256
DIGESTS_SCHEMA = "diagnose.deal-digests/1"
DIGESTS_MAX = 64 * 1024 * 1024
SETTINGS_MAX = 64 * 1024
METRICS_MAX = 64 * 1024 * 1024  # a run's metrics.jsonl (a few KB at --steps 400)
DECK_MAX_FILES = 10_000
DECK_FILE_MAX = 4 * 1024 * 1024
UNNAMED_LEVEL = 1  # a manifest row without a level: dealt before levels existed
PACKAGE_DECK = "the package's own deck"  # said for a deal with no course deck


def hmac_int(secret: bytes, *parts: str) -> int:
    message = "\0".join(parts).encode("utf-8")
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest(), "big")


def run_ids(count: int) -> list[str]:
    return [f"{i:02d}" for i in range(1, count + 1)]


def assignment(secret: bytes, code: str, level: Any) -> dict[str, str]:
    """ID -> break slug, as `level`'s entry deals them (architecture §5): "permutation", every
    slug of its deck in one of the n! orders (HMAC message `permutation/code`, the lab's deal
    since the first version); "draw", one of the ordered `runs`-tuples of distinct slugs of its
    deck and decoy (message `deal/<number>/code`: the decoy is one slug, so a deal holds it at
    most once). Uniform over the arrangements either way (bias below 2**-240)."""
    pool = sorted(level.slugs)
    message = (("permutation", code) if level.deal == "permutation"
               else ("deal", str(level.number), code))
    index = hmac_int(secret, *message) % math.perm(len(pool), level.runs)
    order = []
    for position in range(level.runs):  # the index-th arrangement, itertools.permutations' order
        pick, index = divmod(index, math.perm(len(pool) - 1, level.runs - position - 1))
        order.append(pool.pop(pick))
    return dict(zip(run_ids(level.runs), order, strict=True))


def row_level(row: ManifestRow) -> int:
    """The level a manifest row deals (a row without one: level 1), or GradeError."""
    text = row.level.strip()
    if not text:
        return UNNAMED_LEVEL
    if not (text.isascii() and text.isdigit()):
        raise GradeError(f"{row.student}: the manifest's level {text!r} is not a level number")
    return int(text)


@dataclass(frozen=True)
class Dealt:
    """A student's scenario as the instructor's records derive it: never read from a bundle."""

    student: str
    code: str
    level: int
    truth: dict[str, str]  # ID -> break slug
    email: str = ""
    lang: str = ""
    folder: Path = Path()  # the deal folder

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(sorted(self.truth))

    @property
    def workspace(self) -> Path:
        """Where `deal` wrote the student's bundle, whatever its level (the student's copy:
        evidence, not input)."""
        return self.folder / self.student / DEFAULT_DIR


def derive(secret: bytes, row: ManifestRow, folder: Path) -> Dealt:
    """The scenario `row` deals, derived from `secret` and the row as `deal` derived it.
    GradeError when the row's level is not one of the levels in use."""
    from scenarios.levels import LevelError
    from scenarios.levels import level as entry

    number = row_level(row)
    try:
        level = entry(number)
    except LevelError as err:
        raise GradeError(f"{row.student}: {err.message}", hint=err.hint) from None
    if not row.code:
        raise GradeError(f"{row.student}: the manifest names no scenario code")
    return Dealt(row.student, row.code, number, assignment(secret, row.code, level), row.email,
                 row.lang, Path(folder))


def disagreements(dealt: Dealt, secret: bytes) -> list[str]:
    """How the student's bundle differs from what the instructor's side derives, one sentence
    each; [] when it agrees or is not there to compare. Said, never believed."""
    from grading.seal import SealError, unseal

    workspace = dealt.workspace
    said: list[str] = []
    scenario_file = workspace / SCENARIO_FILE
    if not scenario_file.is_file() and not scenario_file.is_symlink():
        return []
    try:
        data = loads_json(read_small_text(scenario_file, "a scenario file", 64 * 1024,
                                          error=GradeError))
    except (UserError, ValueError):
        data = None
    if not isinstance(data, dict):
        return [f"{scenario_file}: unreadable; the manifest's scenario is graded"]
    wrong = []
    if data.get("code") != dealt.code:
        wrong.append(f"scenario {str(data.get('code'))[:80]!s} for {dealt.code}")
    if data.get("level", UNNAMED_LEVEL) != dealt.level:
        wrong.append(f"level {str(data.get('level'))[:20]} for {dealt.level}")
    if data.get("ids") != list(dealt.ids):
        wrong.append("other IDs")
    if data.get("key") != "instructor":
        wrong.append(f"key {str(data.get('key'))[:40]!r} for 'instructor'")
    if wrong:
        said.append(f"{scenario_file}: says {', '.join(wrong)} (edited, or copied from another "
                    "student's bundle); not believed: the manifest's scenario is graded")
    key_file = workspace / KEY_FILE
    try:
        sealed = unseal(read_small_text(key_file, "an answer key", 64 * 1024,
                                        error=GradeError), secret, dealt.code)
        if sealed != dealt.truth:
            said.append(f"{key_file}: seals another assignment than the deal derives; not "
                        "believed")
    except (UserError, SealError) as err:
        said.append(f"{key_file}: {err}; not needed: the truth is derived from the key")
    return said


# --- the deal's settings and the digests kept at deal time --------------------------------------

def _deal_record(folder: Path, name: str, what: str, limit: int,
                 valid: Callable[[Any], bool]) -> Any:
    """The JSON record `name` that `diagnose deal` keeps in a deal folder, or None when the
    folder has none. GradeError: unreadable, or not what `valid` says deal wrote."""
    path = Path(folder) / name
    if not path.exists():
        return None
    try:
        data = loads_json(read_small_text(path, what, limit, error=GradeError))
        kept = valid(data)
    except (ValueError, TypeError, KeyError, AttributeError):
        kept = False
    if not kept:
        raise GradeError(f"{path}: corrupt (not the JSON `diagnose deal` wrote)")
    return data


def read_settings(folder: Path) -> dict[str, Any] | None:
    """`deal-settings.json` of a deal folder, or None when it has none. GradeError: corrupt."""
    settings: dict[str, Any] | None = _deal_record(
        folder, DEAL_SETTINGS, "deal settings", SETTINGS_MAX, lambda data: isinstance(data, dict))
    return settings


def deal_lang(bundles: Path) -> str:
    """The language the class was dealt in (`deal-settings.json`), else English."""
    from scenarios.langs import LANGS

    try:
        lang = (read_settings(bundles) or {}).get("lang")
    except GradeError:
        return "en"
    return lang if isinstance(lang, str) and lang in LANGS else "en"


def deck_record() -> dict[str, str | None]:
    """The course deck in use (`DIAGNOSE_DECK`) and the levels file, as a deal keeps them:
    their folder and a sha256 over every file (names and bytes). The package's own: None."""
    from scenarios.catalog import course_deck
    from scenarios.level_entries import levels_file

    deck, levels = course_deck(), levels_file()
    if deck is None and levels is None:
        return {"folder": None, "sha256": None}
    hasher = hashlib.sha256()
    for root in (deck, levels):
        if root is None:
            continue
        root = Path(root)
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )[:DECK_MAX_FILES]
        for path in files:
            name = path.name if root.is_file() else path.relative_to(root).as_posix()
            hasher.update(name.encode("utf-8", "surrogateescape") + b"\0")
            try:
                with path.open("rb") as stream:
                    hasher.update(stream.read(DECK_FILE_MAX))
            except OSError:
                hasher.update(b"\0unreadable")
    return {"folder": str(deck if deck is not None else levels), "sha256": hasher.hexdigest()}


def deck_changed(settings: Mapping[str, Any] | None) -> str | None:
    """Why the deck in use is not the one the deal recorded, or None (the same, or a deal
    older than the record: nothing to compare)."""
    recorded = (settings or {}).get("deck")
    if not isinstance(recorded, dict):
        return None
    now = deck_record()
    if recorded.get("sha256") == now["sha256"]:
        return None
    was = recorded.get("folder") or PACKAGE_DECK
    return (f"the deck in use ({now['folder'] or PACKAGE_DECK}) is not the one this class "
            f"was dealt with ({was}, sha256 {str(recorded.get('sha256'))[:12]})")


def file_sha256(path: Path, max_bytes: int = METRICS_MAX) -> str | None:
    """The sha256 of a regular file of at most `max_bytes`, or None (missing, a link, too big)."""
    try:
        if Path(path).is_symlink() or not Path(path).is_file():
            return None
        with Path(path).open("rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError:
        return None
    return None if len(data) > max_bytes else hashlib.sha256(data).hexdigest()


def metrics_digests(workspace: Path, runs: Sequence[str]) -> dict[str, str]:
    """run -> sha256 of `<workspace>/<run>/metrics.jsonl`, for the runs that have one."""
    digests = {}
    for run in runs:
        digest = file_sha256(Path(workspace) / run / "metrics.jsonl")
        if digest:
            digests[run] = digest
    return digests


def _digests_shape(data: Any) -> bool:
    """What `diagnose deal` writes in deal-digests.json: its schema, student -> run -> sha256,
    and student -> the times their bundle was dealt again."""
    students, redealt = data["students"], data.get("redealt", {})
    return (data.get("schema") == DIGESTS_SCHEMA and isinstance(students, dict)
            and all(isinstance(runs, dict) and all(isinstance(d, str) for d in runs.values())
                    for runs in students.values())
            and isinstance(redealt, dict)
            and all(isinstance(t, list) and all(isinstance(x, str) for x in t)
                    for t in redealt.values()))


def _read_digests_file(folder: Path) -> dict[str, Any] | None:
    data = _deal_record(folder, DIGESTS, "deal digests", DIGESTS_MAX, _digests_shape)
    if data is None:
        return None
    return {"students": data["students"], "redealt": data.get("redealt", {})}


def read_digests(folder: Path) -> dict[str, dict[str, str]] | None:
    """student -> run -> sha256 kept at deal time; None for a deal older than the record."""
    found = _read_digests_file(folder)
    return None if found is None else found["students"]


def read_redeals(folder: Path) -> dict[str, list[str]]:
    """student -> when their lost bundle was dealt again (ISO-8601 UTC), as `deal` kept it."""
    found = _read_digests_file(folder)
    return {} if found is None else found["redealt"]


def write_digests(folder: Path, digests: Mapping[str, Mapping[str, str]],
                  redealt: Mapping[str, Sequence[str]] | None = None) -> None:
    """Write the digests kept at deal time (and the re-deals), whole and atomically."""
    data: dict[str, Any] = {"schema": DIGESTS_SCHEMA, "students": {
        s: dict(sorted(r.items())) for s, r in sorted(digests.items())}}
    if redealt:
        data["redealt"] = {s: list(t) for s, t in sorted(redealt.items())}
    atomic_write(Path(folder) / DIGESTS, json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                 error=GradeError)


READ = object()  # metrics_as_dealt: read the digests file itself


def metrics_as_dealt(dealt: Dealt, runs: Sequence[str], kept: Any = READ) -> tuple[bool, str]:
    """Whether the bundle's metrics are the ones dealt: (True, "") when each run's sha256 is
    the one kept at deal time; (True, note) for a deal older than the digests (unchecked,
    said); (False, why) otherwise: its numbers are then not quoted. `kept`: the deal's
    digests already read (`read_digests`), so a class reads them once."""
    if kept is READ:
        kept = read_digests(dealt.folder)
    if kept is None:
        return True, (f"{dealt.student}: this deal keeps no digests of its metrics (dealt by an "
                      "older diagnose): the numbers quoted could not be checked")
    mine = kept.get(dealt.student)
    if mine is None:
        return False, f"{dealt.student}: no digests kept for this student; no numbers quoted"
    now = metrics_digests(dealt.workspace, runs)
    changed = sorted(run for run in runs if mine.get(run) != now.get(run))
    if changed:
        return False, (f"{dealt.workspace}: the metrics of {', '.join(changed)} are not the ones "
                       "dealt (changed since); no numbers quoted")
    return True, ""


def no_symlink_between(top: Path, inner: Path) -> bool:
    """Whether every folder from `top` down to `inner` (both included) is a real folder."""
    try:
        relative = Path(os.path.abspath(inner)).relative_to(Path(os.path.abspath(top)))
    except ValueError:
        return False
    here = Path(os.path.abspath(top))
    for part in ("", *relative.parts):
        here = here / part if part else here
        if here.is_symlink() or not here.is_dir():
            return False
    return True
