"""Reading a small file safely and writing a file atomically: one helper each, stdlib only.

Every file the packages read from a user (a roster, a key, a diagnoses file, scenario.json, a
metrics file) goes through `read_small`: it refuses what is not a regular file (a FIFO, a
device, a folder) before opening it, so `/dev/zero` cannot eat the memory, and it reads at most
`max_bytes` + 1 bytes, so a file that grows after the check is still refused. Every file the
packages write goes through `atomic_write`: a temporary file beside the target, flushed, then
renamed over it, so a crash or a kill leaves the old file or the new one, never half of one.

`WINDOWS` is the project's one platform flag: `readable_by_others` (may others read it?) asks
POSIX permission bits where they mean something and nothing on Windows, whose ACLs a mode does
not show (a Windows file always reads as 0o666). Tests patch this flag, never `os.name`.

Not here: parsing (each reader says what its bytes must be) and locks, worker priority and
signals (`diagnose.platform`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from scenarios.errors import UserError

ErrorType = Callable[[str], Exception]
WINDOWS = os.name == "nt"  # the project's one platform flag


def readable_by_others(path: Path) -> str | None:
    """The mode (as `ls -l` shows it) when group or others may read `path`, else None.

    On Windows nothing is checked: access is governed by ACLs, which the mode does not show;
    the file's folder (the user's profile) is what keeps it private there.
    """
    if WINDOWS:
        return None
    info = Path(path).stat()
    return stat.filemode(info.st_mode) if info.st_mode & 0o077 else None


def read_small(path: Path, what: str, max_bytes: int, *,
               error: ErrorType = UserError, missing: str | None = None) -> bytes:
    """The bytes of `path`, or `error("<path>: ...")` saying why it cannot be `what`.

    `what` names the file for the messages ("a roster file"); `missing` replaces the default
    "no such file" message. Sizes are refused both before and after reading.
    """
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise error(f"{path}: {missing or 'no such file'}") from None
    except OSError as err:
        raise error(f"{path}: cannot be read ({err.strerror or err})") from None
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{path}: is a directory, not {what}")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path}: not {what} (not a regular file)")
    if info.st_size > max_bytes:
        raise error(f"{path}: not {what} (over {_size(max_bytes)})")
    try:
        with path.open("rb") as stream:
            data = stream.read(max_bytes + 1)
    except FileNotFoundError:
        raise error(f"{path}: {missing or 'no such file'}") from None
    except OSError as err:
        raise error(f"{path}: cannot be read ({err.strerror or err})") from None
    if len(data) > max_bytes:
        raise error(f"{path}: not {what} (over {_size(max_bytes)})")
    return data


def read_small_text(path: Path, what: str, max_bytes: int, *,
                    error: ErrorType = UserError, missing: str | None = None) -> str:
    """`read_small` decoded as UTF-8 (a BOM is dropped)."""
    data = read_small(path, what, max_bytes, error=error, missing=missing)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{path}: not {what} (not UTF-8 text)") from None


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None,
                 error: ErrorType = UserError, sync: bool = True) -> Path:
    """Write `data` to `path` through a temporary file in the same folder, then rename it.

    `mode` is the new file's permission bits before any byte is written (the umask applies).
    `sync=False` skips forcing the bytes to disk before the rename, for exports written by
    the thousand and rewritten whole on the next run (Gradescope results): still never half a
    file. An OSError becomes `error("<path>: cannot be written (...)")`; no temporary file stays.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(tmp, flags, 0o666 if mode is None else mode)  # the umask applies
    except OSError as err:
        raise error(f"{path}: cannot be written ({err.strerror or err})") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            if sync:
                os.fsync(stream.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise error(f"{path}: cannot be written ({err.strerror or err})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def _size(max_bytes: int) -> str:
    if max_bytes >= 1 << 20 and max_bytes % (1 << 20) == 0:
        return f"{max_bytes >> 20} MiB"
    if max_bytes >= 1 << 10 and max_bytes % (1 << 10) == 0:
        return f"{max_bytes >> 10} KiB"
    return f"{max_bytes} bytes"
