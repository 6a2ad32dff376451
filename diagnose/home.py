"""Where diagnose keeps the user's own files: the data directory and the self-study secret.

`DIAGNOSE_HOME` overrides the platform's data directory (platformdirs), so tests and shared
machines can point it anywhere. The self-study secret is created on first use with mode 0600,
whole or not at all (`scenarios.files.atomic_create`: a full disk leaves no key, not an empty
one; an empty key an older version left is refused with what to do).
It seals the student's own scenarios: it stops accidents, not a determined student (README).
"""

from __future__ import annotations

import os
from pathlib import Path

from grading.seal import SealError, new_secret, read_key_file, write_key_file
from scenarios.errors import UserError

SECRET_NAME = "self-study.key"


class HomeError(UserError):
    """The data directory or the self-study secret cannot be used; one line saying why."""


def data_dir() -> Path:
    override = os.environ.get("DIAGNOSE_HOME")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("diagnose", appauthor=False))


def secret_path() -> Path:
    return data_dir() / SECRET_NAME


def self_study_secret(create: bool = False) -> bytes:
    """The self-study secret; with `create`, made on first use (mode 0600)."""
    path = secret_path()
    if not path.exists():
        if not create:
            raise HomeError(f"no self-study secret at {path}: this machine made no scenario "
                            "(set DIAGNOSE_HOME if it lives elsewhere)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_key_file(path, new_secret())
        except OSError as err:
            raise HomeError(f"{path.parent}: cannot create the data directory "
                            f"({err.strerror or err})") from None
        except SealError as err:
            if not path.exists():  # lost a race with another process: its secret stands
                raise HomeError(str(err)) from None
    try:
        return read_key_file(path)
    except SealError as err:
        raise HomeError(err.message, err.hint) from None
