"""What is typed lands in the run the form names, whatever the terminal batches: raw bytes
through a pty into a real `diagnose play`, never Pilot (Pilot hands the app keys already
parsed, and would pass with Esc+digit read as one key).

Each program opens run N's form (`N d`, `Tab` sometimes), types text and leaves with Esc;
the next `N d` follows at once, so Esc and the digit come in one read or in two. The bytes are
cut into writes at generated places; at some cuts the test waits until the drafts file holds
what was typed so far (no sleeps), so that the reads differ too. Each draft must hold exactly
the text typed for its run. ESCDELAY=1 makes an Esc read alone a plain Esc at once, so both
of Textual's readings of Esc then a digit (one key, or two) are met.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tui.conftest import copy_scenario

DEADLINE_S = 30.0
ESC = b"\x1b"


class PtyPlay:
    """`diagnose play --dir <workspace>` in a pty of 80×24, its output drained by a thread;
    with `args`, `diagnose play ARGS` in `cwd` instead (its default folder, `workspace`)."""

    def __init__(self, workspace: Path, escdelay: str | None, args: list[str] | None = None,
                 cwd: Path | None = None) -> None:
        self.drafts = workspace / ".drafts.json"
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS="80", LINES="24")
        env.pop("NO_COLOR", None)
        if escdelay is not None:
            env["ESCDELAY"] = escdelay
        where = ["--dir", str(workspace)] if args is None else args
        self.process = subprocess.Popen(
            [sys.executable, "-m", "diagnose", "play", "--name", "Ana", *where],
            stdin=slave, stdout=slave, stderr=slave, env=env,
            cwd=cwd or workspace.parent.parent, start_new_session=True)
        os.close(slave)
        self.master, self.output = master, bytearray()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output.extend(chunk)

    def wait(self, condition, what: str) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while not condition():
            if self.process.poll() is not None:
                raise AssertionError(f"diagnose play exited ({self.process.returncode}) "
                                     f"waiting for {what}: {self.output[-2000:]!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {DEADLINE_S} s; drafts: "
                                     f"{self.answers()}")
            time.sleep(0.005)  # polling the file, not waiting for the app

    def answers(self) -> dict[str, str] | None:
        try:
            data = json.loads(self.drafts.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return {run: a["evidence"] for run, a in data["answers"].items() if a["evidence"]}

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        os.close(self.master)


def program_bytes(entries: list[tuple[int, bool, str]]) -> tuple[bytes, list[int]]:
    """The keys of `entries` (run, Tab first, text), and where each entry's text ends."""
    data, ends = b"", []
    for run, tab, text in entries:
        data += f"{run}d".encode() + (b"\t" if tab else b"") + text.encode()
        ends.append(len(data))
        data += ESC
    return data, ends


def expected(entries: list[tuple[int, bool, str]], upto: int | None = None) -> dict[str, str]:
    typed: dict[str, str] = {}
    for run, _, text in entries[:upto]:
        typed[f"{run:02d}"] = typed.get(f"{run:02d}", "") + text
    return typed


def play_program(tmp_path: Path, entries, cuts: list[tuple[int, bool]],
                 escdelay: str | None) -> None:
    """Type `entries` in writes cut at `cuts` (offset, wait for the drafts there)."""
    course = tmp_path / "course"
    if course.exists():
        shutil.rmtree(course)
    workspace = copy_scenario(course / "experiments" / "19-break-it")
    data, ends = program_bytes(entries)
    play = PtyPlay(workspace, escdelay)
    try:
        play.wait(lambda: b"scenario" in play.output, "first frame")
        start = 0
        for offset, settle in [*sorted(cuts), (len(data), True)]:
            if offset <= start:
                continue
            play.write(data[start:offset])
            start = offset
            if settle:  # the text typed so far, in its run's draft
                done = sum(1 for end in ends if end <= offset)
                want = expected(entries, done)
                play.wait(lambda want=want: (play.answers() or {}) == want if want else True,
                          f"drafts {want}")
        play.wait(lambda: play.answers() == expected(entries), f"drafts {expected(entries)}")
        play.write(b"q")  # the last Esc closed the form: q quits from the dashboard
        play.process.wait(timeout=DEADLINE_S)
        assert play.process.returncode == 0
        assert play.answers() == expected(entries)
    finally:
        play.close()


ISSUE = [(1, True, "evidence for one"), (2, True, "evidence for two"),
         (3, True, "evidence for three")]


@pytest.mark.parametrize("escdelay", [None, "1"])
def test_the_newcomers_keys_land_in_their_runs_in_one_write(workspace, tmp_path, escdelay):
    """The issue's keys, Esc 2 d back to back, in a single write."""
    play_program(tmp_path, ISSUE, [], escdelay)


def test_the_newcomers_keys_land_in_their_runs_key_by_key(workspace, tmp_path):
    data, _ = program_bytes(ISSUE)
    play_program(tmp_path, ISSUE, [(i, False) for i in range(1, len(data))], "1")


entries_st = st.lists(st.tuples(st.integers(1, 3), st.booleans(),
                                st.text("abcxyzDQ019", min_size=1, max_size=6)),
                      min_size=1, max_size=5)


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=entries_st, cuts=st.lists(st.tuples(st.integers(1, 60), st.booleans()),
                                         max_size=8),
       escdelay=st.sampled_from([None, "1"]))
def test_generated_keys_land_in_their_runs_at_any_cut(workspace, tmp_path, entries, cuts,
                                                      escdelay):
    play_program(tmp_path, entries, cuts, escdelay)


def test_editing_keys_read_with_text_act_in_their_order(workspace, tmp_path):
    """Backspace, Ctrl+A and the arrows in the same read as the text around them: each acts
    where it was typed (Textual would run them after the text read with them)."""
    course = tmp_path / "course"
    shutil.rmtree(course)
    workspace = copy_scenario(course / "experiments" / "19-break-it")
    play = PtyPlay(workspace, None)
    try:
        play.wait(lambda: b"scenario" in play.output, "first frame")
        play.write(b"1d\tabc\x7fd")  # ab⌫... : "abd"
        play.wait(lambda: play.answers() == {"01": "abd"}, "abd")
        play.write(b"\x01\x7fxy\x1b[Dz")  # Ctrl+A Backspace xy ← z: "xzy"
        play.wait(lambda: play.answers() == {"01": "xzy"}, "xzy")
        play.write(b"\x1bq")  # Esc q: the form closes, q quits from the dashboard
        assert play.process.wait(timeout=DEADLINE_S) == 0
        assert play.answers() == {"01": "xzy"}
    finally:
        play.close()
