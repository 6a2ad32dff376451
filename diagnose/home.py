"""Where diagnose keeps the user's own files: the data directory, the self-study secret and
the player's name.

`DIAGNOSE_HOME` overrides the platform's data directory (platformdirs), so tests and shared machines
can point it anywhere. The self-study secret is created on first use with mode 0600, whole or not at
all (`scenarios.files.atomic_create`: a full disk leaves no key, not an empty one; an empty key an
older version left is refused with what to do). It seals the student's own scenarios: it stops
accidents, not a determined student (docs/instructors.md). The player's name (`player-name.txt`, one
line) names every level's diagnoses file: asked once by `diagnose play`, changed with `diagnose play
--name` or `u` in the app.
"""

from __future__ import annotations

import os
from pathlib import Path

from grading.seal import SealError, new_secret, read_key_file, write_key_file
from scenarios.errors import UserError

SECRET_NAME = "self-study.key"
NAME_FILE = "player-name.txt"
MAX_NAME = 80  # characters; the name heads a Markdown file and names it


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


def check_name(name: str) -> str:
    """`name` stripped, or HomeError: empty, longer than MAX_NAME, or holding a control
    character (a line break would split the diagnoses file's heading)."""
    name = name.strip()
    if not name:
        raise HomeError("the name is empty", "give the one your diagnoses file should carry")
    if len(name) > MAX_NAME:
        raise HomeError(f"the name has {len(name)} characters; at most {MAX_NAME}")
    if any(not char.isprintable() for char in name):
        raise HomeError("the name holds a control character (a line break, a tab, …)")
    return name


def player_name() -> str | None:
    """The player's name as kept in the data directory; None when none was kept yet (or the
    file cannot be read as one: it is asked again and rewritten)."""
    from scenarios.files import read_small_text

    path = data_dir() / NAME_FILE
    if not path.exists():
        return None
    try:
        return check_name(read_small_text(path, "a name file", 4 * MAX_NAME + 8,
                                          error=HomeError))
    except (HomeError, UnicodeDecodeError):
        return None


def keep_player_name(name: str) -> str:
    """Check `name` and keep it for every level; the name kept. Raises HomeError."""
    from scenarios.files import atomic_write

    name = check_name(name)
    path = data_dir() / NAME_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        raise HomeError(f"{path.parent}: cannot create the data directory "
                        f"({err.strerror or err})") from None
    atomic_write(path, name + "\n", error=HomeError)
    return name
