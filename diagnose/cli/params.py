"""The command line's parameter types: every number is bounded and every path is a path.

One rule for every command, applied where click parses (exit 2, one `Error: Invalid value`
line, before anything is read, written or trained):

- `Bounded(low, high)`: a whole number between two fixed caps, both documented in `--help`;
- `BoundedFloat(low, high)`: a finite number between two caps (`nan`, `inf`, `1e308` refused);
- `PathArg()`: a path that is not empty or blank (click reads `""` as the current folder), has
  no NUL character and is at most `PATH_MAX` characters long;
- `LevelChoice()`: the number of a level of levels.toml (`scenarios.levels`), read when the
  option is parsed, so importing the CLI reads no catalog;
- `LevelOption`: an option (`--level`) whose help says `{levels}` where the levels in use go,
  filled in when its `--help` is shown (`levels_in_help`): a level added to a levels file, a
  course deck's included, is in every help text that names the levels, with no code changed.

The caps themselves (`COUNT_MAX`, `TIMEOUT_MAX`, ...) live here, beside the rule, so that
`tests/test_params.py` can check every option of every command against it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from grading.layout import DEFAULT_DIR, MAX_STUDENTS
from scenarios.errors import UserError

COUNT_MAX = MAX_STUDENTS  # deal --count: students dealt at once, as many as a roster holds
JOBS_MAX = 64            # --jobs: training processes at once
TIMEOUT_MAX = 3600.0     # any timeout, in seconds
PATH_MAX = 4096          # characters in a path given on the command line


class Bounded(click.IntRange):
    """A whole number from `low` to `high`, both inclusive and both required."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__(low, high)


class BoundedFloat(click.FloatRange):
    """A finite number from `low` to `high`, both inclusive and both required."""

    def __init__(self, low: float, high: float) -> None:
        super().__init__(low, high)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number (expected {self.min:g} to "
                      f"{self.max:g})", param, ctx)
        return super().convert(number, param, ctx)


class LevelChoice(click.ParamType):
    """A level's number, one of levels.toml's entries (`scenarios.all_levels`)."""

    name = "level"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "N"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        from scenarios.levels import all_levels

        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        else:
            text = str(value).strip()
        numbers = [str(level.number) for level in all_levels()]
        if text not in numbers:
            self.fail(f"{value!r} is not a level (the levels: {', '.join(numbers)}; "
                      "`diagnose breaks` lists them)", param, ctx)
        return int(text)


def levels_in_help(folders: bool = False) -> str:
    """The levels in use, as --help names them: "1 (the lab), 2 (...)"; with `folders`, each
    level's default folder too. A catalog that cannot be read says where to look instead (its
    error is the command's to say, once it runs)."""
    from scenarios.levels import all_levels

    try:
        levels = all_levels()
    except UserError:
        return "see `diagnose breaks`"
    return ", ".join(f"{level.number} ({level.name['en']}"
                     + (f", in {level.folder(Path(DEFAULT_DIR))})" if folders else ")")
                     for level in levels)


class LevelOption(click.Option):
    """An option whose help names the levels in use: `{levels}` in its help becomes
    `levels_in_help()`, and `{levels_and_folders}` the same with each level's folder."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        written = self.help
        if written is not None:
            if "{levels_and_folders}" in written:
                written = written.replace("{levels_and_folders}", levels_in_help(folders=True))
            if "{levels}" in written:
                written = written.replace("{levels}", levels_in_help())
        saved, self.help = self.help, written
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = saved


class PathArg(click.Path):
    """A path, as a `pathlib.Path`: never empty or blank, no NUL, at most PATH_MAX long."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(path_type=Path, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            if not value.strip():
                self.fail("an empty path (name a file or folder; '.' is the current folder)",
                          param, ctx)
            if "\0" in value:
                self.fail("a path cannot hold a NUL character", param, ctx)
            if len(value) > PATH_MAX:
                self.fail(f"a path of {len(value):,} characters (at most {PATH_MAX:,})",
                          param, ctx)
        return super().convert(value, param, ctx)
