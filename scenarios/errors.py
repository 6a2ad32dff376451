"""One family of user errors for the three packages, caught once at the CLI's door.

`UserError` is a problem the user can fix: a bad file, a bad setting, a folder that cannot be
written. Domain code raises it (or a subclass) where the problem is known, with one line that
says what is wrong and, optionally, a `hint` that says what to do. `diagnose.cli` turns it into
`Error: <message>` and exit 1; `UsageProblem` into exit 2. Nothing else catches it.

It lives in `scenarios` because that package is the bottom of the import direction
(scenarios <- grading <- diagnose): every package can raise it. Programming errors are not
user errors: they stay tracebacks.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix: one line saying what is wrong, and optionally how to fix it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class UsageProblem(UserError):
    """The command was called wrongly (options that do not go together): exit 2."""
