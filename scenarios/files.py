"""Reading a small file safely and writing a file atomically: one helper each, stdlib only.

Every file the packages read from a user (a roster, a key, a diagnoses file, scenario.json, a
metrics file) goes through `read_small`: it refuses what is not a regular file (a FIFO, a
device, a folder) before opening it, so `/dev/zero` cannot eat the memory, and it reads at most
`max_bytes` + 1 bytes, so a file that grows after the check is still refused. Every file the
packages write goes through `atomic_write`: a temporary file beside the target, flushed, then
renamed over it, so a crash or a kill leaves the old file or the new one, never half of one.
Every output is a regular file: `atomic_write`, `atomic_output` and `atomic_create` first
refuse a target that exists as anything else (a device such as `/dev/null`, a FIFO, a socket,
a folder), in one line, and leave it as it was (`check_output_target`): renaming over
`/dev/null` as root would replace the machine's.

`WINDOWS` is the project's one platform flag: `readable_by_others` (may others read it?) asks
POSIX permission bits where they mean something and nothing on Windows, whose ACLs a mode does
not show (a Windows file always reads as 0o666). Tests patch this flag, never `os.name`.

One bounded parser per format, for text already read that way: `loads_json`,
`loads_json_lines`, `loads_toml`, `loads_csv`. Each checks the nesting depth before `json` or
`tomllib` recurse (a file of 30,000 `[` is one error line, never a RecursionError), refuses
lone surrogates (which no file can be written back with), and raises only `ValueError` (a
`json.JSONDecodeError`, a `tomllib.TOMLDecodeError`, or `FormatError` saying why), which each
caller turns into its own one-line `UserError`. `read_json`, `read_toml` and `read_csv` read
a file and parse it in one call: size, encoding, depth and syntax, each one line. Every file
the program reads goes through one of these (tests/test_reading_fuzz.py feeds them nested,
huge, truncated and non-UTF-8 input).

`exclusive_lock` is the one lock on a file: one writer per workspace (`diagnose new`) and one
grading per deal folder (its ledger), through `filelock`'s OS lock (flock on POSIX, msvcrt on
Windows), which the OS drops when its holder dies, so a stale lock file never blocks. `filelock`
is imported when a lock is taken: the Gradescope grader, one process per upload, never takes one.

Not here: what a file's data must mean (each reader checks its own fields), worker priority and
signals (`diagnose.platform`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import os
import re
import secrets
import stat
import tomllib
from collections.abc import Callable, Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from scenarios.errors import UserError

ErrorType = Callable[[str], Exception]
WINDOWS = os.name == "nt"  # the project's one platform flag
MAX_DEPTH = 32  # arrays and objects inside each other; our files nest 4 deep at most

# What is not structure: strings and comments, dropped before the brackets are counted.
# Possessive repeats: linear on any input, closed or not.
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_TOML_SKIP = re.compile(
    r'"""(?:[^"\\]++|\\.|"(?!""))*+"""'
    r"|'''(?:[^']++|'(?!''))*+'''"
    r'|"(?:[^"\\\n]++|\\.)*+"'
    r"|'[^'\n]*+'"
    r"|#[^\n]*+")
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class FormatError(ValueError):
    """Text that parses in no bounded way: nested too deep, a lone surrogate, a bad CSV."""


def readable_by_others(path: Path) -> str | None:
    """The mode (as `ls -l` shows it) when group or others may read `path`, else None.

    On Windows nothing is checked: access is governed by ACLs, which the mode does not show;
    the file's folder (the user's profile) is what keeps it private there.
    """
    if WINDOWS:
        return None
    info = Path(path).stat()
    return stat.filemode(info.st_mode) if info.st_mode & 0o077 else None


def read_small(path: Path | Traversable, what: str, max_bytes: int, *,
               error: ErrorType = UserError, missing: str | None = None,
               shown: str | None = None) -> bytes:
    """The bytes of `path`, or `error("<path>: ...")` saying why it cannot be `what`.

    `what` names the file for the messages ("a roster file"); `missing` replaces the default
    "no such file" message; `shown` replaces the path in them. A file on disk is refused by
    its kind and size before it is read, and any file by its size after; `path` may also be
    a package's resource (`importlib.resources`), read the same way.
    """
    name = shown if shown is not None else path
    if isinstance(path, str | os.PathLike):
        path = Path(path)
        try:
            info = path.stat()
        except FileNotFoundError:
            raise error(f"{name}: {missing or 'no such file'}") from None
        except OSError as err:
            raise error(f"{name}: cannot be read ({err.strerror or err})") from None
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{name}: is a directory, not {what}")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: not {what} (not a regular file)")
        if info.st_size > max_bytes:
            raise error(f"{name}: not {what} (over {_size(max_bytes)})")
    try:
        with path.open("rb") as stream:
            data = stream.read(max_bytes + 1)
    except FileNotFoundError:
        raise error(f"{name}: {missing or 'no such file'}") from None
    except OSError as err:
        raise error(f"{name}: cannot be read ({err.strerror or err})") from None
    if len(data) > max_bytes:
        raise error(f"{name}: not {what} (over {_size(max_bytes)})")
    return data


def read_small_text(path: Path | Traversable, what: str, max_bytes: int, *,
                    error: ErrorType = UserError, missing: str | None = None,
                    shown: str | None = None) -> str:
    """`read_small` decoded as UTF-8 (a BOM is dropped)."""
    data = read_small(path, what, max_bytes, error=error, missing=missing, shown=shown)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{shown if shown is not None else path}: not {what} (not UTF-8 "
                    "text)") from None


def _check_depth(structure: str, max_depth: int) -> None:
    """Refuse `structure` (strings and comments removed) if its brackets nest too deep."""
    brackets = _NOT_BRACKET.sub("", structure)
    if len(brackets) > max_depth and max(
            itertools.accumulate(_DEPTH_STEP[b] for b in brackets)) > max_depth:
        raise FormatError(f"nested deeper than {max_depth} levels")


def _no_lone_surrogates(value: Any, text: str) -> Any:
    if "\\u" in text:  # only an escape can make one; json.dumps finds it
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise FormatError("a \\u escape that is no character (a lone surrogate)") from None
    return value


def loads_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` with the depth checked first; ValueError for anything it refuses."""
    if text.count("[") + text.count("{") > max_depth:  # else it cannot nest too deep
        _check_depth(_JSON_STRING.sub("", text), max_depth)
    return _no_lone_surrogates(json.loads(text), text)


def loads_json_lines(text: str, max_depth: int = MAX_DEPTH) -> list[Any]:
    """Each non-blank line of a JSON-lines text as a value; ValueError naming the first bad
    line ("line 3: ...")."""
    values = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                values.append(loads_json(line, max_depth))
            except ValueError as err:
                raise FormatError(f"line {number}: {_reason(err)}") from None
    return values


def loads_toml(text: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """`tomllib.loads` with the depth checked first; ValueError for anything it refuses."""
    if text.count("[") + text.count("{") > max_depth:
        _check_depth(_TOML_SKIP.sub("", text), max_depth)
    return tomllib.loads(text)


def loads_csv(text: str) -> list[list[str]]:
    """The rows of a CSV text (blank rows dropped); FormatError for what `csv` refuses (a
    field over its limit, a quote left open at the end)."""
    try:
        return [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    except csv.Error as err:
        raise FormatError(str(err)) from None


def _reason(err: ValueError) -> str:
    """One line saying why text did not parse, without the parser's own position noise."""
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno}"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def read_json(path: Path, what: str, max_bytes: int, *, error: ErrorType = UserError,
              missing: str | None = None) -> Any:
    """A JSON file's value, or `error("<path>: not <what> (why)")`: size, encoding, depth
    and syntax, each one line."""
    text = read_small_text(path, what, max_bytes, error=error, missing=missing)
    try:
        return loads_json(text)
    except ValueError as err:
        raise error(f"{path}: not {what} ({_reason(err)})") from None


def read_json_lines(path: Path, what: str, max_bytes: int, *, error: ErrorType = UserError,
                    missing: str | None = None) -> list[Any]:
    """A JSON-lines file's values, or `error(...)` naming the first bad line."""
    text = read_small_text(path, what, max_bytes, error=error, missing=missing)
    try:
        return loads_json_lines(text)
    except ValueError as err:
        raise error(f"{path}: not {what} ({_reason(err)})") from None


def read_toml(path: Path, what: str, max_bytes: int, *, error: ErrorType = UserError,
              missing: str | None = None) -> dict[str, Any]:
    """A TOML file's table, or `error(...)` saying why, in one line."""
    text = read_small_text(path, what, max_bytes, error=error, missing=missing)
    try:
        return loads_toml(text)
    except ValueError as err:
        raise error(f"{path}: not {what} ({_reason(err)})") from None


def read_csv(path: Path, what: str, max_bytes: int, *, error: ErrorType = UserError,
             missing: str | None = None) -> list[list[str]]:
    """A CSV file's rows, or `error(...)` saying why, in one line."""
    text = read_small_text(path, what, max_bytes, error=error, missing=missing)
    try:
        return loads_csv(text)
    except ValueError as err:
        raise error(f"{path}: not {what} ({_reason(err)})") from None


class LockBusy(Exception):  # noqa: N818 - a state, not a fault
    """Another process holds the lock."""


def exclusive_lock(path: Path, *, wait: float = 0.0, keep: bool = False) -> Callable[[], None]:
    """Take an OS lock on `path` (created if needed), waiting up to `wait` seconds for its
    holder, and return its release; LockBusy when it is still held, OSError when `path` cannot
    be created.

    The release removes the file while the lock is still held, so it does not linger, unless
    `keep`: a lock others wait for keeps its file, since a waiter that opened it just before
    the removal would lock a file no longer there while a newcomer locks a new one. A file left
    by a killed holder carries no lock and is simply taken over.
    """
    from filelock import FileLock, Timeout

    lock = FileLock(str(path), timeout=wait)
    try:
        lock.acquire(poll_interval=0.05)
    except Timeout:
        raise LockBusy(str(path)) from None

    def release() -> None:
        if not keep:
            with contextlib.suppress(OSError):
                Path(path).unlink()
        lock.release()

    return release


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None,
                 error: ErrorType = UserError, sync: bool = True) -> Path:
    """Write `data` to `path` through a temporary file in the same folder, then rename it
    (`atomic_output`).

    `mode` is the new file's permission bits before any byte is written (the umask applies).
    `sync=False` skips forcing the bytes to disk before the rename, for exports written by
    the thousand and rewritten whole on the next run (Gradescope results): still never half a
    file. An OSError becomes `error("<path>: cannot be written (...)")`; no temporary file stays.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    with atomic_output(path, error=error, sync=sync) as tmp:
        handle = os.open(tmp, flags, 0o666 if mode is None else mode)  # the umask applies
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
    return path


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def check_output_target(path: Path, error: ErrorType = UserError) -> None:
    """Refuse to write `path` when it exists as anything but a regular file (followed through
    a symbolic link), saying what it is; a missing `path` is fine."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing (or unreachable: the write itself will say why)
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise error(f"{path}: cannot be written (it is {kind}, not a regular file); left as "
                    "it was")


@contextlib.contextmanager
def atomic_output(path: Path, *, error: ErrorType = UserError,
                  sync: bool = True) -> Iterator[Path]:
    """A temporary path beside `path` for the block to write (a zip archive needs a name);
    when the block ends, the file is forced to disk (unless `sync=False`) and renamed onto
    `path`, whole or not at all. An OSError becomes `error("<path>: cannot be written (...)")`;
    no temporary file stays, whatever ends the block."""
    path = Path(path)
    check_output_target(path, error)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        yield tmp
        if sync:
            with open(tmp, "rb+") as stream:
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


def atomic_create(path: Path, data: bytes, *, mode: int = 0o600,
                  error: ErrorType = UserError) -> Path:
    """Create `path` holding `data`, whole or not at all, and never over an existing file.

    The bytes go to a temporary file beside it (mode `mode` from the start), are forced to
    disk, and the file is then linked into place, which fails if `path` exists: a full disk
    or a kill leaves no file, never an empty one (a 0-byte key once locked users out).
    Raises FileExistsError when `path` exists; any other failure is `error(...)`.
    """
    path = Path(path)
    check_output_target(path, error)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        if path.exists() or path.is_symlink():
            raise FileExistsError(path)
        handle = os.open(tmp, flags, mode)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            if WINDOWS:
                os.rename(tmp, path)  # refuses an existing target there
            else:
                os.link(tmp, path)  # refuses an existing target, atomically
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
    except FileExistsError:
        raise
    except OSError as err:
        raise error(f"{path}: cannot be written ({err.strerror or err})") from None
    return path


def _size(max_bytes: int) -> str:
    if max_bytes >= 1 << 20 and max_bytes % (1 << 20) == 0:
        return f"{max_bytes >> 20} MiB"
    if max_bytes >= 1 << 10 and max_bytes % (1 << 10) == 0:
        return f"{max_bytes >> 10} KiB"
    return f"{max_bytes} bytes"
