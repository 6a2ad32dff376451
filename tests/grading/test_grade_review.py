"""`diagnose grade FILE` reviews before it records a self-study grading: every ID's answer
and its evidence's first line, ✗ where it scores 0 (the app's `g` shows the same lines), then
a question at a terminal (a real pty here); elsewhere it is refused without --yes. The
instructor's --key and --bundles gradings never ask."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from grading_testkit import CODE, dealing_secret, make_workspace

from diagnose.cli import cli
from diagnose.game.review import render_review, rows_from_reading
from grading import read_attempts, read_diagnoses
from grading.seal import write_key_file

WS = Path("experiments") / "19-break-it"
FILE = (f"<!-- scenario: {CODE} -->\n## 01\nDiagnosis: no warmup\nloss climbs from step 0\n"
        "then flat\n## 02\nDiagnosis: not sure\n")
DEADLINE_S = 30.0


def here(tmp_path, monkeypatch) -> None:
    from diagnose.home import self_study_secret

    monkeypatch.chdir(tmp_path)
    make_workspace(WS, self_study_secret(create=True))
    Path("d.md").write_text(FILE, encoding="utf-8")


def test_not_at_a_terminal_the_review_is_printed_and_grading_refused(tmp_path, monkeypatch):
    here(tmp_path, monkeypatch)
    result = CliRunner().invoke(cli, ["grade", "d.md"], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "· 01  No learning-rate warmup — loss climbs from step 0",
        "✗ 02  not sure — (no evidence)",
        "✗ 03  no answer — (no evidence)",
        "✗ scores 0: 02, 03"]
    assert result.stderr == ("Error: grading records your first attempt and shows the answers: "
                             "check the review above, then grade with --yes\n")
    assert read_attempts(WS) == [] and not (WS / "reveal.json").exists()
    graded = CliRunner().invoke(cli, ["grade", "d.md", "--yes"], catch_exceptions=False)
    assert graded.exit_code == 0 and "Score: 1/3" in graded.stdout
    assert len(read_attempts(WS)) == 1


def test_the_cli_prints_the_lines_the_app_reviews(tmp_path, monkeypatch):
    here(tmp_path, monkeypatch)
    reading = read_diagnoses(Path("d.md"))
    lines = render_review(rows_from_reading(("01", "02", "03"), reading, 1, "es"), "es")
    result = CliRunner().invoke(cli, ["grade", "d.md", "--lang", "es"], catch_exceptions=False)
    assert result.stdout.splitlines() == lines and lines[1].startswith("✗ 02")


def _at_a_terminal(answer: bytes) -> tuple[int, str]:
    """`diagnose grade d.md` with a pty for its terminal, answering `answer` to its question."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "diagnose", "grade", "d.md"],
                               stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    output = b""
    deadline = time.monotonic() + DEADLINE_S
    try:
        while b"Grade now" not in output:
            assert time.monotonic() < deadline, output
            output += os.read(master, 4096)  # blocks until the command writes
        os.write(master, answer)
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the command exited: the pty's other end is closed
                break
            if not chunk:
                break
            output += chunk
        return process.wait(timeout=DEADLINE_S), output.decode("utf-8", "replace")
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


def test_at_a_terminal_it_asks_and_no_is_the_default(tmp_path, monkeypatch):
    here(tmp_path, monkeypatch)
    code, output = _at_a_terminal(b"\r")  # Enter: the default, no
    assert code == 0 and "✗ scores 0: 02, 03" in output and "Not graded." in output
    assert read_attempts(WS) == []
    code, output = _at_a_terminal(b"y\r")
    assert code == 0 and "Score: 1/3" in output
    assert len(read_attempts(WS)) == 1


def test_the_instructors_gradings_never_ask(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    key = dealing_secret(["AAAA-1111"])  # the deal derives the kit's truth for that code
    write_key_file(Path("course.key"), key)
    bundle = Path("bundles", "borja") / WS
    make_workspace(bundle, key, "AAAA-1111", key="instructor")
    Path("bundles/manifest.csv").write_text("student,code\nborja,AAAA-1111\n")
    Path("borja.md").write_text("<!-- scenario: AAAA-1111 -->\n01: no warmup\n")
    one = CliRunner().invoke(cli, ["grade", "borja.md", "--dir", str(bundle), "--key",
                                   "course.key"], catch_exceptions=False)
    assert one.exit_code == 0 and "Score: 1/3" in one.stdout and "✗" not in one.stdout
    many = CliRunner().invoke(cli, ["grade", "--key", "course.key", "--bundles", "bundles",
                                    "borja.md"], catch_exceptions=False)
    assert many.exit_code == 0, many.output
