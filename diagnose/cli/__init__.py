"""The command line: one click group (`diagnose.cli.common`) and its commands by feature: the
game (`game`), grading and revealing (`grade`), the instructor's class (`classroom`) and your
own runs (`runs`), each a short function with an example that parses its options and calls the
domain. `main` is the console script (`diagnose.cli:main`)."""

from __future__ import annotations

from diagnose.cli import classroom, game, grade, runs  # noqa: F401 (each adds its commands)
from diagnose.cli.common import cli

__all__ = ["cli", "main"]


def main() -> None:
    cli(prog_name="diagnose")

