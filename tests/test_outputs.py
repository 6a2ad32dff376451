"""Every output is a regular file (issue 34, item 10): a target that exists as a device, a FIFO,
a socket or a folder is refused in one line by `scenarios.files`' writers, and left as it was.

As root, `gradescope-autograder --out /dev/null` once renamed a zip over the machine's
`/dev/null`; `--gradebook` on a FIFO did the same. The check lives in the writers
(`check_output_target`), so every command inherits it: the tests call the writers on each kind
of target, then two commands as a person would.
"""

from __future__ import annotations

import os
import socket
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from grading.seal import new_secret, write_key_file
from scenarios.errors import UserError
from scenarios.files import atomic_create, atomic_output, atomic_write

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import make_workspace  # noqa: E402


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a FIFO"


def _folder(path: Path) -> str:
    path.mkdir()
    return "a directory"


def _socket(path: Path) -> str:
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
    except OSError as err:  # a path too long for AF_UNIX
        pytest.skip(f"no socket here: {err}")
    finally:
        server.close()
    return "a socket"


def _char_device(path: Path) -> str:
    """A node with /dev/null's device numbers (1, 3): what the autograder once replaced."""
    if os.geteuid() != 0:
        pytest.skip("only root makes device nodes")
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this container allows no device nodes")
    return "a character device"


KINDS = {"fifo": _fifo, "folder": _folder, "socket": _socket, "device": _char_device}


def _snapshot(path: Path) -> tuple[int, int, int]:
    info = os.lstat(path)
    return info.st_mode, info.st_ino, info.st_rdev


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", ["atomic_write", "atomic_output", "atomic_create"])
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_was(tmp_path, kind,
                                                                           writer):
    target = tmp_path / "out"
    what = KINDS[kind](target)
    before = _snapshot(target)
    with pytest.raises(UserError) as caught:
        if writer == "atomic_write":
            atomic_write(target, "data")
        elif writer == "atomic_create":
            atomic_create(target, b"data")
        else:
            with atomic_output(target) as partial:
                partial.write_bytes(b"data")
    assert str(caught.value) == (f"{target}: cannot be written (it is {what}, not a regular "
                                 "file); left as it was")
    assert _snapshot(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary file left


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_link_to_what_is_not_a_file_is_refused_too(tmp_path, kind):
    KINDS[kind](tmp_path / "node")
    (tmp_path / "link").symlink_to(tmp_path / "node")
    with pytest.raises(UserError, match="not a regular file"):
        atomic_write(tmp_path / "link", "data")
    assert (tmp_path / "link").is_symlink()


def test_a_regular_file_and_a_new_name_are_written_as_before(tmp_path):
    (tmp_path / "old").write_text("old")
    atomic_write(tmp_path / "old", "new")
    atomic_write(tmp_path / "fresh", "new")
    assert (tmp_path / "old").read_text() == (tmp_path / "fresh").read_text() == "new"


@pytest.fixture()
def dealt(tmp_path):
    secret = new_secret()
    write_key_file(tmp_path / "course.key", secret)
    bundles = tmp_path / "bundles"
    make_workspace(bundles / "ana" / "experiments" / "19-break-it", secret, code="AAAA-2222",
                   truth={"01": "no-warmup", "02": "broken-mask", "03": "bad-init"},
                   key="instructor")
    (bundles / "manifest.csv").write_text("student,code,email,level,lang\n"
                                          "ana,AAAA-2222,ana@uni.example,,\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("kind", KINDS)
def test_gradescope_autograder_out_on_a_device_fifo_socket_or_folder_is_one_line(dealt, kind):
    target = dealt / "autograder.zip"
    what = KINDS[kind](target)
    before = _snapshot(target)
    result = CliRunner().invoke(cli, [
        "gradescope-autograder", "--key", str(dealt / "course.key"), "--bundles",
        str(dealt / "bundles"), "--out", str(target)], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {target}: ") and what in result.output
    assert len(result.output.splitlines()) == 1
    assert _snapshot(target) == before


def test_a_gradebook_on_a_fifo_is_refused_in_one_line_and_stays_a_fifo(dealt):
    gradebook = dealt / "grades.csv"
    os.mkfifo(gradebook)
    sub = dealt / "subs"
    sub.mkdir()
    (sub / "ana.md").write_text("# Diagnoses\n\n01: no-warmup\n", encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "grade", "--key", str(dealt / "course.key"), "--bundles", str(dealt / "bundles"),
        str(sub / "ana.md"), "--gradebook", str(gradebook)], catch_exceptions=False)
    assert (f"{gradebook}: cannot be written (it is a FIFO, not a regular file); left as it "
            "was") in result.output
    assert result.exit_code == 1
    assert stat.S_ISFIFO(os.lstat(gradebook).st_mode)
