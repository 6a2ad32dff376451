"""The player's way through the levels: the passing rule and the progress file.

A level is passed by a self-study scenario of that level graded N/N on its first attempt, N the
level's IDs (`Level.runs`; 3/3 for the package's levels), on the attempt that counts
(architecture §8): a later attempt, made after the reveal showed the
answers, proves nothing. Passing offers the next level; nothing is locked (`--level N` goes
anywhere). Each grading of a self-study scenario is recorded in `<DIAGNOSE_HOME>/progress.json`:

    {"schema": "diagnose.progress/1",
     "levels": {"1": {"<code>": {"first": [3, 3], "best": [3, 3], "attempts": 2}}}}

`first` is the score of the attempt that counts (null when that attempt was not recorded here,
e.g. graded before this file existed), `best` the best of all, `attempts` how many gradings.
The file is written atomically; one that cannot be read is moved aside with a warning and
progress starts again. Which levels there are, and their order, is levels.toml's
(`scenarios.levels`); a level the file records and the table lacks (another levels file's) is
kept, not shown. `render` is the text of `diagnose progress` (the app's progress screen shows
it too). Not here: the grading (`grading`, and the self-study flow that records here,
`diagnose.game.self_study`) and the screens.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.home import data_dir
from scenarios.errors import UserError
from scenarios.files import atomic_write, loads_json, read_small_text
from scenarios.levels import all_levels, first_level
from scenarios.levels import following_level as following
from scenarios.words import say

PROGRESS_FILE = "progress.json"
SCHEMA = "diagnose.progress/1"
MAX_BYTES = 1024 * 1024


class ProgressError(UserError):
    """The progress file cannot be written; one line saying why."""


@dataclass
class LevelProgress:
    # code -> first, best, attempts
    scenarios: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def played(self) -> int:
        return len(self.scenarios)

    @property
    def firsts(self) -> list[tuple[int, int]]:
        return [tuple(s["first"]) for s in self.scenarios.values() if s["first"] is not None]

    @property
    def best(self) -> tuple[int, int] | None:
        scores = [tuple(s["best"]) for s in self.scenarios.values()]
        return max(scores, key=lambda s: (s[0] / s[1] if s[1] else 0, s[0])) if scores else None

    @property
    def passed(self) -> bool:
        return any(score == total and total for score, total in self.firsts)


def progress_path() -> Path:
    return data_dir() / PROGRESS_FILE


def _valid_score(value: object) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
            and value[0] <= value[1])


def _parse(text: str) -> dict[int, LevelProgress]:
    data = loads_json(text)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError("not a progress file")
    levels = data.get("levels")
    if not isinstance(levels, dict):
        raise ValueError("no levels")
    out = {}
    for key, played in levels.items():
        if not key.isdigit() or int(key) < 1 or not isinstance(played, dict):
            raise ValueError(f"level {key!r}")
        for entry in played.values():
            if (not isinstance(entry, dict)
                    or not (entry.get("first") is None or _valid_score(entry.get("first")))
                    or not _valid_score(entry.get("best"))
                    or not isinstance(entry.get("attempts"), int)):
                raise ValueError("entry")
        out[int(key)] = LevelProgress(dict(played))
    return out


def load_progress(path: Path | None = None) -> tuple[dict[int, LevelProgress], list[str]]:
    """Every level's progress (empty levels included), and warnings. A file that cannot be
    read is moved aside (`progress.json.corrupt-<time>`), never lost and never fatal."""
    path = path or progress_path()
    progress = {level.number: LevelProgress() for level in all_levels()}
    if not path.exists():
        return progress, []
    try:
        progress.update(_parse(read_small_text(path, "a progress file", MAX_BYTES)))
        return progress, []
    except (UserError, ValueError, UnicodeDecodeError) as err:
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.replace(path, aside)
        except OSError as move:
            return progress, [f"{path}: unreadable ({err}) and cannot be moved aside "
                              f"({move.strerror or move}); progress starts again"]
        return progress, [f"{path}: unreadable ({err}); moved aside to {aside.name}, "
                          "progress starts again"]


def save_progress(progress: dict[int, LevelProgress], path: Path | None = None) -> Path:
    path = path or progress_path()
    data = {"schema": SCHEMA, "levels": {str(level): p.scenarios
                                         for level, p in sorted(progress.items()) if p.played}}
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        raise ProgressError(f"{path.parent}: cannot be written ({err.strerror or err})") from None
    atomic_write(path, json.dumps(data, indent=2) + "\n", error=ProgressError)
    return path



def erase_progress(path: Path | None = None) -> None:
    """`diagnose progress --reset`: the progress of every level, gone."""
    path = path or progress_path()
    try:
        path.unlink()
    except OSError as err:
        raise UserError(f"{path}: cannot be removed ({err.strerror or err})") from None


def record_grading(level: int, code: str, score: int, total: int, counts: bool,
                   path: Path | None = None) -> tuple[bool, list[str]]:
    """Record one self-study grading; (whether it passed the level just now, warnings).
    `counts`: it is the scenario's first attempt, the one the passing rule reads."""
    progress, warnings = load_progress(path)
    played = progress.setdefault(level, LevelProgress()).scenarios
    was_passed = progress[level].passed
    entry = played.get(code)
    if entry is None:  # an uncounted grading first seen here: its first attempt is unknown
        entry = played[code] = {"first": [score, total] if counts else None,
                                "best": [score, total], "attempts": 0}
    entry["attempts"] += 1
    if score > entry["best"][0]:
        entry["best"] = [score, total]
    save_progress(progress, path)
    return (not was_passed and progress[level].passed), warnings


def record_report(scenario: Any, report: Any, lang: str) -> tuple[str | None, list[str]]:
    """Record a self-study grading (a `grading.Scenario` and its `Report`): (the message for a
    level passed just now, or None; warnings). A progress file that cannot be written is a
    warning: the grade stands."""
    try:
        passed, warnings = record_grading(scenario.level, scenario.code, report.score,
                                          report.max_score, report.counts)
    except ProgressError as err:
        return None, [f"progress not recorded ({err})"]
    return (passed_message(scenario.level, lang) if passed else None), warnings


def next_level(progress: dict[int, LevelProgress]) -> int | None:
    """The first level not yet passed; None once every level is."""
    return next((level.number for level in all_levels() if not progress[level.number].passed),
                None)


def level_to_play(progress: dict[int, LevelProgress]) -> int:
    """The level `diagnose play` opens unasked: the first not yet passed; once every level is
    passed, the first."""
    upcoming = next_level(progress)
    return first_level().number if upcoming is None else upcoming


def failed_scenario(folder: Path, level: int,
                    progress: dict[int, LevelProgress]) -> tuple[str, str] | None:
    """(code, first score) when `folder` holds a scenario of `level` whose first grading did
    not pass (a fresh one is worth dealing: its answers are known); else None."""
    from diagnose.workspace import WorkspaceError, is_workspace, open_workspace

    if not is_workspace(folder):
        return None
    try:
        workspace = open_workspace(folder)
    except WorkspaceError:
        return None  # `play` says what is wrong with it
    entry = progress.get(level, LevelProgress()).scenarios.get(workspace.code)
    if workspace.level != level or entry is None or entry["first"] is None:
        return None
    score, total = entry["first"]
    return (workspace.code, f"{score}/{total}") if score < total else None


def keep_as_previous(folder: Path, code: str) -> Path:
    """Move a played scenario out of its level's folder, to `previous/<code>` beside it, so
    that the folder can hold a fresh one; the old one's files are kept whole."""
    target = folder.parent / "previous" / code
    if target.exists():
        raise ProgressError(f"{target}: already exists; move it away to deal a fresh scenario")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(folder, target)
    except OSError as err:
        raise ProgressError(f"{folder}: cannot be moved to {target} "
                            f"({err.strerror or err})") from None
    return target


def level_after(level: int, progress: dict[int, LevelProgress]) -> int | None:
    """The level a player at `level` may go on to: the next one once `level` is passed (at
    any time after, not only on the grading that passed it); None before, and after the last.
    The grade screen's offer and the main screen's `n` both ask here."""
    upcoming = following(level)
    return upcoming.number if upcoming is not None and progress[level].passed else None


def full_score(level: int) -> str:
    """The score that passes `level`: every ID right, "3/3" (its entry's `runs`)."""
    from scenarios.levels import level as entry

    runs = entry(level).runs
    return f"{runs}/{runs}"


def passed_message(level: int, lang: str, in_app: bool = False) -> str:
    """What a player who just passed `level` is offered: in the app, the key (`n`); at the
    command line, the command."""
    upcoming = following(level)
    if upcoming is None:
        return say(lang, "Level {level} passed ({score} on the first attempt): every level is "
                         "done.", level=level, score=full_score(level))
    if in_app:
        return say(lang, "Level {level} passed ({score} on the first attempt). Next: level "
                         "{next}, n plays it.", level=level, next=upcoming.number,
                   score=full_score(level))
    return say(lang, "Level {level} passed ({score} on the first attempt). Next: level {next} "
               "(`diagnose play --level {next}`).", level=level, next=upcoming.number,
               score=full_score(level))


def play_command(level: int) -> str:
    """The command that opens `level`: `diagnose play` opens the first level unasked."""
    return ("diagnose play" if level == first_level().number
            else f"diagnose play --level {level}")


def render(progress: dict[int, LevelProgress], lang: str = "en", in_app: bool = False) -> str:
    """`diagnose progress`'s text: one block per level, then what is next (`in_app`: the
    app's `p` screen, which names the level, not the command: `n` goes on from there)."""
    lines = []
    for level in (entry.number for entry in all_levels()):
        p = progress[level]
        state = say(lang, "passed") if p.passed else say(lang, "not passed yet")
        firsts = ", ".join(f"{s}/{t}" for s, t in p.firsts) or say(lang, "none")
        best = f"{p.best[0]}/{p.best[1]}" if p.best else "-"
        lines += [say(lang, "Level {level}: {state}", level=level, state=state),
                  "  " + say(lang, "scenarios played: {n}", n=p.played),
                  "  " + say(lang, "first-attempt scores: {scores}", scores=firsts),
                  "  " + say(lang, "best: {score}", score=best)]
    upcoming = next_level(progress)
    lines.append("")
    if upcoming is None:
        lines.append(say(lang, "Every level passed. Play any again with `diagnose play --level "
                               "N`."))
    elif in_app:
        lines.append(say(lang, "Next: level {level}", level=upcoming))
    else:
        lines.append(say(lang, "Next: {command}", command=play_command(upcoming)))
    lines.append(say(lang, "A level is passed with every ID right on a scenario's first "
                           "grading."))
    return "\n".join(lines) + "\n"


def choose_level_to_play(base: Path, level: int | None, lang: str, *,
                         tell: Callable[[str], None] = lambda line: None,
                         fresh_wanted: Callable[[str], bool] = lambda question: False
                         ) -> tuple[Path, int]:
    """`diagnose play`'s folder and level when no --dir is given: `level`, or the first not yet
    passed (said through `tell`), in its folder under `base` (`grading.layout.level_dir`). When
    that folder holds a scenario of the level graded and failed, `fresh_wanted(question)`
    decides whether it is kept under previous/<code> to make room for a fresh one (said too).
    """
    from grading.layout import level_dir

    progress, _ = load_progress()  # its warnings are `diagnose progress`'s to show
    if level is None:
        level = level_to_play(progress)
        tell(say(lang, "Level {level} (the first not passed yet; --level N plays another).",
                 level=level) if not progress[level].passed else
             say(lang, "Level {level} (every level is passed; --level N plays another).",
                 level=level))
    folder = level_dir(level, base)
    failed = failed_scenario(folder, level, progress)
    if failed is not None:
        code, score = failed
        if fresh_wanted(say(lang, "{folder} holds scenario {code}, graded {score}. Deal a fresh "
                                  "one (the old one is kept in previous/{code})?",
                            folder=folder, code=code, score=score)):
            tell(say(lang, "Kept in {path}.", path=keep_as_previous(folder, code)))
    return folder, level
