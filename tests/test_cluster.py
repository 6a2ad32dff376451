"""`diagnose deal` on a Dask cluster, as people run it: a real LocalCluster over TLS (its
certificates made here) deals the same bytes as a local deal (at every student's level) and
writes the manifest in roster order, survives a worker killed mid-task, gives no task to a
worker of another version that joins, and waits for late workers; a silent peer, a lost
scheduler (real `dask scheduler` and `dask worker` processes) and a cluster that cannot deal
each end in one Error line within their deadline."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import scenarios
from diagnose.classroom import cluster
from diagnose.classroom import deal as classroom
from diagnose.classroom.deal import RosterEntry
from diagnose.cli import cli
from diagnose.game.dealing import plan_rounds
from diagnose.game.training import TrainingCallbacks
from grading.manifest import ManifestRow, write_manifest
from grading.seal import new_secret, unseal, write_key_file

# skipped without the [cluster] extra; imported by the fixture, not at collection (0.5 s a worker)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="needs the [cluster] extra (dask.distributed)")

CODES = {"ana": "AAAA-2222", "borja": "BBBB-3333"}
CLASS = [RosterEntry("ana"), RosterEntry("borja", level="3")]  # borja: level 3's deck
STEPS = 2  # any length deals the same bundles; two steps train the least
DASK = [sys.executable, "-m", "dask"]  # `dask scheduler`, `dask worker`


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory) -> cluster.TLSFiles:
    """A CA, and a certificate and key it signed, made here (Dask's `Security.temporary`)."""
    from distributed.security import Security

    made = Security.temporary()
    root = tmp_path_factory.mktemp("tls")
    for name, pem in (("ca.pem", made.tls_ca_file), ("cert.pem", made.tls_client_cert),
                      ("key.pem", made.tls_client_key)):
        (root / name).write_text(pem)
    return cluster.TLSFiles(root / "ca.pem", root / "cert.pem", root / "key.pem")


def tls_args(files: cluster.TLSFiles) -> list[str]:
    return ["--tls-ca-file", str(files.ca_file), "--tls-cert", str(files.cert),
            "--tls-key", str(files.key)]


@pytest.fixture(scope="module")
def local_cluster(tls_files):
    """Two one-thread worker processes behind a tls:// scheduler, and a checked client."""
    import distributed
    from distributed.security import Security

    security = Security(tls_ca_file=str(tls_files.ca_file),
                        tls_scheduler_cert=str(tls_files.cert),
                        tls_scheduler_key=str(tls_files.key),
                        tls_worker_cert=str(tls_files.cert), tls_worker_key=str(tls_files.key),
                        tls_client_cert=str(tls_files.cert), tls_client_key=str(tls_files.key),
                        require_encryption=True)
    warnings: list[str] = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", protocol="tls://",
                                  security=security) as lc:
        checked = cluster.connect(lc.scheduler_address, timeout=30, min_workers=2,
                                  tls=tls_files, on_warning=warnings.append)
        yield lc, checked, warnings
        checked.close()


@pytest.fixture
def key(tmp_path) -> Path:
    path = tmp_path / "course.key"
    write_key_file(path, new_secret())
    return path


def start_worker(address: str, files: cluster.TLSFiles, folder: Path,
                 preload: str | None = None) -> subprocess.Popen:
    """A `dask worker` process of its own (no nanny); `preload` is Python it runs first."""
    extra = []
    if preload is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "preload.py").write_text(preload)
        extra = ["--preload", str(folder / "preload.py")]
    return subprocess.Popen([*DASK, "worker", address, *tls_args(files), "--nthreads", "1",
                             "--no-nanny", "--no-dashboard", *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def deal_one(key: Path, out: Path, *args: str):
    """`diagnose deal --count 1` of `key` into `out` with `args`: its result and its seconds."""
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["deal", "--key", str(key), "--out", str(out), "--count",
                                      "1", *args])
    return result, time.monotonic() - started


def wait_until(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        time.sleep(0.05)


def deal(out: Path, students: list, secret: bytes, steps: int, **how) -> list[tuple[str, str]]:
    """Plan, then carry out, as `diagnose deal` does."""
    return classroom.carry_out(classroom.plan_deal(out, students, secret, steps=steps), secret,
                               **how)


def with_codes(out: Path, codes: dict[str, str], secret: bytes) -> Path:
    """A deal folder whose manifest already deals these codes (and its settings, without which
    a deal folder is refused): a deal keeps them, as it keeps a deleted bundle's (so a cluster
    deal and a local one can be compared byte for byte)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / classroom.SETTINGS_FILE).write_text(
        json.dumps(classroom.deal_settings(secret, STEPS, "en")), encoding="utf-8")
    levels = {entry.name: entry.level for entry in CLASS}  # a row without one is level 1
    write_manifest(out, [ManifestRow(student, code, level=levels.get(student, ""))
                         for student, code in codes.items()])
    return out


@pytest.fixture(scope="module")
def local_deal(tmp_path_factory):
    """The reference: the same students and codes dealt with the local training pool."""
    root = tmp_path_factory.mktemp("local-deal")
    secret = new_secret()
    deal(with_codes(root / "bundles", CODES, secret), CLASS, secret, steps=STEPS)
    return root / "bundles", secret


def bundle_files(bundles: Path, student: str) -> dict[str, bytes]:
    root = classroom.bundle_dir(bundles, student)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def assert_same_bundles(ours: Path, theirs: Path, secret: bytes) -> None:
    for student in CODES:
        mine, local = bundle_files(ours, student), bundle_files(theirs, student)
        assert sorted(mine) == sorted(local)
        assert {"scenario.json", "01/metrics.jsonl", "reference/dashboard.html"} <= set(mine)
        for name in mine:
            if name != "answer-key.sealed":
                assert mine[name] == local[name], f"{student}/{name} differs"
        sealed = {k: json.loads(v[name]) for k, v in (("mine", mine), ("local", local))
                  for name in ["answer-key.sealed"]}
        assert {k: v for k, v in sealed["mine"].items() if k != "token"} == \
            {k: v for k, v in sealed["local"].items() if k != "token"}
        assert unseal(mine["answer-key.sealed"].decode(), secret) == \
            unseal(local["answer-key.sealed"].decode(), secret)


def test_a_cluster_deal_writes_the_bytes_of_a_local_deal(local_cluster, local_deal, tmp_path):
    _, checked, _ = local_cluster
    reference, secret = local_deal
    seen: list[str] = []
    rows = deal(with_codes(tmp_path / "bundles", CODES, secret), CLASS, secret, steps=STEPS,
                          client=checked,
                          callbacks=TrainingCallbacks(
                              on_step=lambda label, record: seen.append(label)))
    assert sorted(rows) == sorted(CODES.items())
    assert_same_bundles(tmp_path / "bundles", reference, secret)
    borja = bundle_files(tmp_path / "bundles", "borja")
    assert json.loads(borja["scenario.json"])["level"] == 3
    assert json.loads(bundle_files(tmp_path / "bundles", "ana")["scenario.json"])["level"] == 1
    answers = unseal(borja["answer-key.sealed"].decode(), secret)
    assert sorted(answers) == ["01", "02", "03"]
    assert set(answers.values()) <= set(scenarios.breaks(3))  # level 3's deck, not level 1's
    assert not set(answers.values()) & set(scenarios.breaks(1))
    assert seen.count("ana/reference") == STEPS  # the same progress, as results arrive
    assert (tmp_path / "bundles" / "deal-settings.json").read_bytes() == \
        (reference / "deal-settings.json").read_bytes()
    again = deal(tmp_path / "bundles", [*CLASS, "chen"], secret, steps=STEPS,
                           client=checked, on_student=lambda s, c, resumed: seen.append(
                               f"{s}:{resumed}"))
    assert {"ana:True", "borja:True", "chen:False"} <= set(seen)  # a rerun resumes
    assert [row[0] for row in again] == ["ana", "borja", "chen"]


def test_a_cluster_deal_writes_the_manifest_in_roster_order(local_cluster, tmp_path):
    """cy's bundle is kept from a local deal: the cluster deal resumes it, first to finish."""
    _, checked, _ = local_cluster
    secret, out = new_secret(), tmp_path / "bundles"
    with_codes(out, {"ana": "AAAA-4444", "bo": "BBBB-5555", "cy": "CCCC-6666"}, secret)
    deal(out, ["cy"], secret, steps=STEPS)
    deal(out, ["ana", "bo", "cy"], secret, steps=STEPS, client=checked)
    with (out / "manifest.csv").open(newline="", encoding="utf-8") as stream:
        assert [row[0] for row in csv.reader(stream)][1:] == ["ana", "bo", "cy"]


def test_a_worker_killed_mid_task_loses_nothing(local_cluster, local_deal, tls_files,
                                                tmp_path):
    lc, checked, _ = local_cluster
    client = checked.client
    reference, secret = local_deal
    pids = client.run(os.getpid)
    killed: list[str] = []

    def kill_a_busy_worker() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            busy = [w for w, keys in client.processing().items()
                    if any(str(k).startswith("diagnose-") for k in keys) and w in pids]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.01)

    killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
    killer.start()
    deal(with_codes(tmp_path / "bundles", CODES, secret), CLASS, secret, steps=STEPS,
                   client=checked)
    killer.join(timeout=5)
    assert killed, "no worker was seen training"
    assert_same_bundles(tmp_path / "bundles", reference, secret)
    # the nanny restarts it, a new process that joins late (as a Slurm job): a deal that asks
    # for two workers waits for it, and checks it
    again = cluster.connect(lc.scheduler_address, timeout=10, min_workers=2, worker_timeout=30,
                            tls=tls_files)
    assert len(again.checked()) == 2
    again.close()


def test_a_worker_of_another_version_that_joins_gets_no_task(local_cluster, local_deal,
                                                             tls_files, key, tmp_path):
    """It joins after the deal connected; had it got a task, the task would have refused it
    and ended the deal (`train_scenario`). A deal that needs three workers of this version
    cannot start with it (one line, within --worker-timeout)."""
    lc, checked, warnings = local_cluster
    address, reference, secret = lc.scheduler_address, *local_deal
    before = set(checked.workers())
    other = start_worker(address, tls_files, tmp_path, preload=(
        "import diagnose.classroom.cluster\n"
        "diagnose.classroom.cluster.engine_version = lambda: '0.0.0+engine0'\n"))
    try:
        wait_until(lambda: len(checked.workers()) == 3, 30, "the other worker joined")
        (joined,) = set(checked.workers()) - before
        codes = {**CODES, "chen": "CCCC-4444"}  # more tasks than workers: one waits
        deal(with_codes(tmp_path / "bundles", codes, secret), [*CLASS, "chen"], secret,
                       steps=STEPS, client=checked)
        assert_same_bundles(tmp_path / "bundles", reference, secret)
        assert f"worker {joined} runs diagnose 0.0.0+engine0, this machine " \
               f"{cluster.engine_version()}: it gets no task of this deal" in "\n".join(warnings)
        assert joined not in checked.checked()
        stranded_then_run(checked.client, address, secret, tmp_path)
        few, seconds = deal_one(key, tmp_path / "b", "--scheduler", address,
                                *tls_args(tls_files), "--min-workers", "3", "--worker-timeout",
                                "1")
        assert seconds < 5
        assert few.exit_code == 1
        assert few.output.startswith(f"Warning: worker {joined} runs diagnose 0.0.0+engine0")
        assert few.output.splitlines()[-1] == (
            f"Error: {address}: 2 of the 3 worker(s) wanted run diagnose "
            f"{cluster.engine_version()} (after 1 s); {cluster.install_hint()}")
    finally:
        other.kill()
        other.wait()
    wait_until(lambda: len(checked.workers()) == 2, 30, "the other worker left")


def stranded_then_run(client, address: str, secret: bytes, tmp_path: Path) -> None:
    """Tasks submitted when no worker of their version is there wait for one, and run on it
    once it is checked (the scheduler parks them; `train_on_cluster` submits them again).
    Here the version is the one the other worker claims: it is the only one that qualifies."""
    claimed = cluster.CheckedCluster(client, address, timeout=30, expected="0.0.0+engine0")
    orders = [cluster.Order(name, tmp_path / name, code, 1)
              for name, code in (("eve", "EEEE-6666"), ("finn", "FFFF-7777"))]
    results: list[cluster.Trained] = []
    dealing = threading.Thread(target=lambda: results.extend(cluster.train_on_cluster(
        claimed, orders, secret=secret, steps=STEPS, check=False)), daemon=True)
    dealing.start()
    dealing.join(30)
    assert sorted(trained.order.student for trained in results) == ["eve", "finn"]
    assert all(sorted(t.records) == ["01", "02", "03", "reference"] for t in results)


def test_a_deal_with_no_worker_of_its_version_ends_within_its_timeout(local_cluster, tmp_path):
    """As when every checked worker has left mid-deal: the tasks wait `timeout`, then one line."""
    lc, checked, _ = local_cluster
    nobody = cluster.CheckedCluster(checked.client, lc.scheduler_address, timeout=0.5,
                                    expected="9.9.9+engine9")
    started = time.monotonic()
    with pytest.raises(cluster.ClusterError) as refused:
        list(cluster.train_on_cluster(nobody, [cluster.Order("gus", tmp_path, "GGGG-8888", 1)],
                                      secret=new_secret(), steps=STEPS, check=False))
    assert time.monotonic() - started < 5
    assert str(refused.value) == (
        f"{lc.scheduler_address}: no worker of diagnose 9.9.9+engine9 for 0.5 s, 1 student(s) "
        "still to train; the bundles written so far are kept: start workers and run the same "
        "command again to deal the rest")
    assert not checked.client.processing() or not any(
        str(k).startswith("diagnose-") for keys in checked.client.processing().values()
        for k in keys)


def test_a_deal_over_tls_from_the_command_line(local_cluster, tls_files, key, tmp_path):
    lc, _, _ = local_cluster
    address = lc.scheduler_address
    result = CliRunner().invoke(cli, [
        "deal", "--key", str(key), "--out", str(tmp_path / "bundles"), "--count", "1",
        "--steps", str(STEPS), "--scheduler", address, *tls_args(tls_files), "--min-workers", "2"],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith(f"Dealt 1 bundles into {tmp_path}")
    assert (classroom.bundle_dir(tmp_path / "bundles", "student-01") / "scenario.json").exists()
    bare, _ = deal_one(key, tmp_path / "b", "--scheduler", address)
    assert (bare.exit_code, bare.output) == (1, (
        f"Error: {address} needs --tls-ca-file and --tls-cert (and --tls-key unless the cert "
        "holds it), or Dask's distributed.comm.tls settings\n"))
    plain = address.replace("tls://", "tcp://")
    mixed, _ = deal_one(key, tmp_path / "b", "--scheduler", plain, *tls_args(tls_files))
    assert (mixed.exit_code, mixed.output) == (1, (
        f"Error: --tls-ca-file and --tls-cert need a tls:// address, not {plain}\n"))
    half, _ = deal_one(key, tmp_path / "b", "--scheduler", address, "--tls-ca-file",
                       str(tls_files.ca_file))
    assert half.exit_code == 2 and "--tls-ca-file and --tls-cert go together" in half.output
    clear, seconds = deal_one(key, tmp_path / "b", "--scheduler", plain, "--connect-timeout",
                              "2")
    assert seconds < 4
    assert (clear.exit_code, clear.output) == (1, (
        f"Error: {plain}: the scheduler closed the connection in Dask's handshake; if it speaks "
        "TLS, use tls://HOST:PORT with --tls-ca-file and --tls-cert\n"))
    few, seconds = deal_one(key, tmp_path / "b", "--scheduler", address, *tls_args(tls_files),
                            "--min-workers", "3", "--worker-timeout", "1")
    assert seconds < 5
    assert (few.exit_code, few.output) == (1, (
        f"Error: {address}: 2 worker(s) joined within 1 s, 3 wanted; start them with `dask "
        f"worker {address}` (or lower --min-workers, or raise --worker-timeout)\n"))
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("scheme", ["tcp", "tls"])
def test_a_peer_that_accepts_and_never_speaks_is_one_error_line_in_time(scheme, tls_files, key,
                                                                        tmp_path):
    silent = socket.create_server(("127.0.0.1", 0))
    held: list[tuple[socket.socket, object]] = []
    threading.Thread(target=lambda: held.extend(silent.accept() for _ in range(8)),
                     daemon=True).start()
    address = f"{scheme}://127.0.0.1:{silent.getsockname()[1]}"
    started = time.monotonic()
    try:
        result = CliRunner().invoke(cli, [
            "deal", "--key", str(key), "--out", str(tmp_path / "bundles"), "--count", "2",
            "--scheduler", address, "--connect-timeout", "0.5",
            *(tls_args(tls_files) if scheme == "tls" else [])], catch_exceptions=False)
        seconds = time.monotonic() - started
    finally:
        silent.close()
        for connection, _ in held:
            connection.close()
    assert seconds < 2.5
    assert (result.exit_code, result.output) == (1, (
        f"Error: {address}: something accepts connections there but no Dask scheduler "
        "answered within 0.5 s; is it the address `dask scheduler` printed?\n"))
    assert not (tmp_path / "bundles").exists()


def test_a_lost_scheduler_is_one_error_line_and_its_workers_shut_down(key, tmp_path):
    """Real `dask scheduler` and `dask worker` processes; the scheduler is killed while a task
    trains. The error says what the workers do: they end with it (so both need a restart)."""
    from distributed import Client

    file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([*DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(file)], **quiet)
    worker = subprocess.Popen([*DASK, "worker", "--scheduler-file", str(file), "--nthreads",
                               "1", "--no-dashboard"], **quiet)  # waits for the file
    try:
        wait_until(lambda: file.exists() and "address" in file.read_text(), 30,
                   "the scheduler wrote its file")
        address = json.loads(file.read_text())["address"]
        watcher = Client(address, set_as_default=False, timeout=10)

        def kill_the_scheduler_once_training() -> None:
            wait_until(lambda: any(str(k).startswith("diagnose-") for keys in
                                   watcher.processing().values() for k in keys), 60,
                       "a task trains")
            scheduler.kill()

        killer = threading.Thread(target=kill_the_scheduler_once_training, daemon=True)
        killer.start()
        result = CliRunner().invoke(cli, [
            "deal", "--key", str(key), "--out", str(tmp_path / "bundles"), "--count", "2",
            "--steps", "20", "--scheduler", address, "--worker-timeout", "30"],
            catch_exceptions=False)
        ended = time.monotonic()
        killer.join(5)
        watcher.close(timeout=1)
        assert result.exit_code == 1 and result.output.count("Error:") == 1
        assert result.output.splitlines()[-1] == (
            f"Error: {address}: the scheduler was lost; the bundles written so far are kept; "
            f"{cluster.LOST_SCHEDULER}")
        # what the message says: the worker ends with its scheduler (once its task is done)
        worker.wait(timeout=60)
        assert time.monotonic() - ended < 60
    finally:
        for process in (scheduler, worker):
            if process.poll() is None:
                process.kill()
                process.wait()


def test_an_unreachable_scheduler_is_one_error_line_and_nothing_written(tmp_path):
    key = tmp_path / "course.key"
    write_key_file(key, new_secret())
    started = time.monotonic()
    result = CliRunner().invoke(cli, [
        "deal", "--key", str(key), "--out", str(tmp_path / "bundles"), "--count", "2",
        "--steps", "5", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "0.5"],
        catch_exceptions=False)
    assert time.monotonic() - started < 15
    assert result.exit_code == 1
    assert result.output.startswith("Error: tcp://127.0.0.1:9: cannot reach a Dask scheduler "
                                    "(Connection refused)")
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "bundles").exists()
    bad, _ = deal_one(key, tmp_path / "b", "--scheduler", "http://host:8786")
    assert bad.exit_code == 2 and "use tcp://HOST:PORT" in bad.output


@given(scheme=st.sampled_from(["", "tcp://", "tls://"]),
       host=st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,30}[a-z0-9])?", fullmatch=True) |
       st.ip_addresses().map(lambda ip: f"[{ip}]" if ip.version == 6 else str(ip)),
       port=st.integers(1, 65535))
def test_every_scheduler_address_is_accepted(scheme, host, port):
    assert cluster.check_address(f"{scheme}{host}:{port}") is None


@given(scheme=st.sampled_from(["http://", "ucx://", "inproc://", "tcp:/", "TLS:", "ws://"]),
       host=st.from_regex(r"[a-z0-9]{1,20}", fullmatch=True),
       port=st.integers(0, 10**6).filter(lambda p: not 1 <= p <= 65535) | st.integers(1, 65535))
def test_anything_else_is_refused_in_one_line(scheme, host, port):
    problem = cluster.check_address(f"{scheme}{host}:{port}")
    assert problem is not None and "\n" not in problem
    assert problem.endswith("use tcp://HOST:PORT or tls://HOST:PORT (dask scheduler prints "
                            "it; its port is 8786 by default)")


def test_a_slurm_cluster_renders_its_job_script():
    jobqueue = pytest.importorskip("dask_jobqueue")
    with jobqueue.SLURMCluster(cores=1, processes=1, memory="2GB", walltime="01:00:00",
                               job_script_prologue=["source ~/venv/bin/activate"],
                               scheduler_options={"dashboard": False}) as slurm:
        script = slurm.job_script()
    assert script.startswith("#!/usr/bin/env bash")
    assert "#SBATCH -t 01:00:00" in script and "#SBATCH --mem=" in script
    assert "source ~/venv/bin/activate" in script
    assert "distributed.cli.dask_worker" in script or "dask worker" in script
    assert "--nthreads 1" in script  # one core per worker: a task trains in its own process


def _readme_slurm_cluster() -> str:
    """docs/instructors.md's `SLURMCluster(...)` call, as the instructor copies it."""
    import ast
    import re

    readme = (Path(__file__).resolve().parents[1] / "docs" / "instructors.md").read_text(
        encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
                if "SLURMCluster(" in b]
    calls = [node for node in ast.walk(ast.parse(block)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "SLURMCluster"]
    assert len(calls) == 1
    return ast.unparse(calls[0])


def test_the_readme_s_slurm_recipe_runs_the_venv_s_python_and_keeps_the_dashboard_local():
    """The recipe's workers start with `python=` (dask-jobqueue otherwise writes this
    Python's path into the job script), and its scheduler's dashboard, a web page with no
    password, listens on 127.0.0.1 only; the shell recipe's `dask scheduler` too."""
    import psutil

    jobqueue = pytest.importorskip("dask_jobqueue")
    recipe = _readme_slurm_cluster()
    assert "python=" in recipe and "127.0.0.1" in recipe
    with eval(recipe, {"SLURMCluster": jobqueue.SLURMCluster}) as slurm:  # noqa: S307
        script = slurm.job_script()
        port = slurm.scheduler.service_ports["dashboard"]
        listening = [c.laddr for c in psutil.Process().net_connections(kind="tcp")
                     if c.status == psutil.CONN_LISTEN and c.laddr.port == port]
    worker = next(line for line in script.splitlines() if "dask_worker" in line)
    assert worker.startswith("$HOME/venv/bin/python -m distributed.cli.dask_worker ")
    assert sys.executable not in script
    assert listening and {addr.ip for addr in listening} == {"127.0.0.1"}
    readme = (Path(__file__).resolve().parents[1] / "docs" / "instructors.md").read_text(
        encoding="utf-8")
    scheduler = readme[readme.index("dask scheduler --tls"):].split("# prints", 1)[0]
    assert "--dashboard-address 127.0.0.1:8787" in scheduler


def test_a_task_checks_its_runs_against_its_levels_deck(monkeypatch):
    from diagnose.diagnosis import diagnostician

    decks: list[tuple[str, ...]] = []

    def refuse_the_first_round(records, deal, deck):
        decks.append(tuple(deck))
        return len(decks) > 1

    monkeypatch.setattr(diagnostician, "runs_distinguishable", refuse_the_first_round)
    rounds = plan_rounds(new_secret(), "DDDD-4444", 2, level=3)
    deck = scenarios.level(3).deck  # read here, on the instructor's machine: the task gets it
    kept, records = cluster.train_scenario(rounds, deck, True, cluster.engine_version())
    assert decks == [deck] * 2 and kept == 1  # as a local deal: re-dealt
    assert sorted(records) == ["01", "02", "03", "reference"]
    assert cluster.train_scenario(rounds, deck, False, cluster.engine_version())[0] == 0
