"""diagnose: a terminal game that teaches how training failures look.

The app package: the numpy engine (`diagnose.engine`), the scenario engine, the TUI
(`diagnose.tui`), the dashboards and the CLI (`diagnose.cli`). It imports `scenarios` and
`grading`; nothing imports `diagnose.cli` or `diagnose.tui`.
"""

__version__ = "0.1.0"

from diagnose import moved as _moved  # noqa: E402  the old import paths, for one release

_moved.install()
