"""The command line's parameter types: every number is bounded and every path is a path.

One rule for every command, applied where click parses (exit 2, one `Error: Invalid value`
line, before anything is read, written or trained):

- `Bounded(low, high)`: a whole number between two fixed caps, both documented in `--help`;
- `BoundedFloat(low, high)`: a finite number between two caps (`nan`, `inf`, `1e308` refused);
- `PathArg()`: a path that is not empty or blank (click reads `""` as the current folder), has
  no NUL character and is at most `PATH_MAX` characters long;
- `LevelChoice()`: the number of a level of levels.toml (`scenarios.levels`), read when the
  option is parsed, so `--help` reads no catalog.

The caps themselves (`COUNT_MAX`, `TIMEOUT_MAX`, ...) live here, beside the rule, so that
`tests/test_params.py` can check every option of every command against it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from grading.layout import MAX_STUDENTS

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
