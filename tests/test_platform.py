"""What must hold on every platform, and what a signal to the parent must not leave behind.

Real processes and real signals: `diagnose new` runs as a subprocess, its parent is killed
(SIGKILL, SIGTERM, SIGHUP) and every process it started (the training workers, the server that
forks them) must be gone within 5 s. Process checks read /proc, so they run on Linux only. The
portability test hides `fcntl` and flips the project's one platform flag
(`scenarios.files.WINDOWS`), then makes a real scenario.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from diagnose.game.dealing import ScenarioError
from diagnose.game.scenario import workspace_lock

LINUX = sys.platform.startswith("linux")
linux_only = pytest.mark.skipif(not LINUX, reason="reads /proc")
DIAGNOSE = "import sys\nfrom diagnose.cli import main\nsys.argv[0] = 'diagnose'\nmain()\n"


def _descendants(pid: int) -> set[int]:
    """Live (non-zombie) processes below `pid`: its children, theirs, and so on."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":
            parents[int(entry.name)] = int(ppid)
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@linux_only
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGKILL, -9), (signal.SIGTERM, 143),
                                              (signal.SIGHUP, 129)])
def test_workers_exit_when_their_parent_is_killed(tmp_path, signum, code):
    env = {**os.environ, "DIAGNOSE_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    log = tmp_path.parent / f"{tmp_path.name}.stderr"  # a file: orphans cannot hold a pipe open
    with log.open("wb") as stderr_file:
        proc = subprocess.Popen(
            [sys.executable, "-c", DIAGNOSE, "new", "--dir", str(tmp_path / "ws"), "--steps",
             "5000", "--jobs", "2"], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
            stderr=stderr_file)
    workers: set[int] = set()
    try:
        # two training workers, the resource tracker and (Linux) the server that forks them
        assert _wait_for(lambda: len(_descendants(proc.pid)) >= 4, 60), "no workers started"
        time.sleep(0.5)  # let them take their first tasks
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signum)
        proc.wait(timeout=30)
        gone = _wait_for(lambda: not any(_alive(pid) for pid in workers), 5)
    finally:
        proc.kill()
        for pid in workers:  # never leave a failed test's processes running
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    stderr = log.read_bytes()
    assert gone, f"processes left running after {signal.Signals(signum).name} to the parent"
    assert proc.returncode == code, stderr.decode()
    assert not (tmp_path / "ws").exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ("home",)]
    if signum == signal.SIGKILL:
        assert leftovers in ([], [".ws.lock"])  # a killed holder's file, with no lock on it
        with workspace_lock(tmp_path / "ws"):  # a stale lock does not block
            pass
    else:
        assert leftovers == [], "an interrupted `new` must leave nothing behind"
        assert b"Interrupted: nothing was written" in stderr
        assert b"Traceback" not in stderr


def test_a_dead_holders_lock_is_stale(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from diagnose.game.scenario import workspace_lock
            with workspace_lock(Path({str(tmp_path / 'ws')!r})):
                print('held', flush=True)
                time.sleep(60)
        """)], stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    assert holder.stdout.readline() == b"held\n"
    with pytest.raises(ScenarioError, match="another diagnose is writing"), \
            workspace_lock(tmp_path / "ws"):
        pass
    holder.kill()
    holder.wait()
    assert (tmp_path / ".ws.lock").exists()
    with workspace_lock(tmp_path / "ws"):
        pass
    assert not (tmp_path / ".ws.lock").exists()


def test_no_fcntl_and_the_windows_flag(tmp_path):
    """Every module imports without fcntl; `new` runs with the platform flag set to Windows."""
    script = textwrap.dedent(f"""
        import importlib, pkgutil, sys
        sys.modules["fcntl"] = None  # as on Windows: `import fcntl` fails
        import diagnose, grading, scenarios
        for package in (scenarios, grading, diagnose):
            for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
                importlib.import_module(info.name)
        import scenarios.files
        scenarios.files.WINDOWS = True
        from diagnose.cli import main
        sys.argv = ["diagnose", "new", "--dir", {str(tmp_path / 'ws')!r}, "--steps", "5",
                    "--seed", "PORTABLE"]
        main()
    """)
    env = {**os.environ, "DIAGNOSE_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Scenario PORTABLE ready" in done.stdout
    key = tmp_path / "home" / "self-study.key"
    key.chmod(0o644)  # on Windows a mode says nothing: the key is still accepted
    check = subprocess.run(
        [sys.executable, "-c", "import scenarios.files, sys\nscenarios.files.WINDOWS = True\n"
         "from grading.seal import read_key_file\n"
         f"read_key_file({str(key)!r})\nprint('accepted')"],
        env=env, capture_output=True, text=True, timeout=60)
    assert check.stdout == "accepted\n", check.stderr


def test_worker_priority_is_lowered_only_where_the_platform_allows(monkeypatch):
    from diagnose import platform
    from scenarios import files

    calls: list[int] = []
    monkeypatch.setattr(os, "nice", calls.append, raising=False)
    monkeypatch.setattr(files, "WINDOWS", True)
    platform.lower_priority(10)
    assert calls == []
    monkeypatch.setattr(files, "WINDOWS", False)
    platform.lower_priority(10)
    assert calls == [10]
