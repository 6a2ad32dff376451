"""`diagnose deal` on a Dask cluster: a real LocalCluster deals the same bytes as a local deal
(at every student's level), survives a worker killed mid-task, and a cluster that cannot deal
is one Error line."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import scenarios
from diagnose import classroom, cluster
from diagnose.classroom import Student
from diagnose.cli import cli
from grading.seal import new_secret, unseal, write_key_file

# skipped without the [cluster] extra; imported by the fixture, not at collection (0.5 s a worker)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="needs the [cluster] extra (dask.distributed)")

CODES = {"ana": "AAAA-2222", "borja": "BBBB-3333"}
CLASS = [Student("ana"), Student("borja", level="3")]  # borja: level 3's deck
STEPS = 5


@pytest.fixture(scope="module")
def local_cluster():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as lc:
        client = cluster.connect(lc.scheduler_address, timeout=30)
        yield lc, client
        client.close()


@pytest.fixture(scope="module")
def local_deal(tmp_path_factory):
    """The reference: the same students and codes dealt with the local training pool."""
    root = tmp_path_factory.mktemp("local-deal")
    secret = new_secret()
    classroom.deal(root / "bundles", CLASS, secret, steps=STEPS, codes=CODES)
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
    _, client = local_cluster
    reference, secret = local_deal
    seen: list[str] = []
    rows = classroom.deal(tmp_path / "bundles", CLASS, secret, steps=STEPS, codes=CODES,
                          client=client, on_step=lambda label, record: seen.append(label))
    assert sorted(rows) == sorted(CODES.items())
    assert_same_bundles(tmp_path / "bundles", reference, secret)
    borja = bundle_files(tmp_path / "bundles", "borja")
    assert json.loads(borja["scenario.json"])["level"] == 3
    assert "level" not in json.loads(bundle_files(tmp_path / "bundles", "ana")["scenario.json"])
    answers = unseal(borja["answer-key.sealed"].decode(), secret)
    assert sorted(answers) == ["01", "02", "03"]
    assert set(answers.values()) <= set(scenarios.breaks(3))  # level 3's deck, not level 1's
    assert not set(answers.values()) & set(scenarios.breaks(1))
    assert seen.count("ana/reference") == STEPS  # the same progress, as results arrive
    assert (tmp_path / "bundles" / "deal-settings.json").read_bytes() == \
        (reference / "deal-settings.json").read_bytes()
    again = classroom.deal(tmp_path / "bundles", [*CLASS, "chen"], secret, steps=STEPS,
                           client=client, on_student=lambda s, c, resumed: seen.append(
                               f"{s}:{resumed}"))
    assert {"ana:True", "borja:True", "chen:False"} <= set(seen)  # a rerun resumes
    assert [row[0] for row in again] == ["ana", "borja", "chen"]


def test_a_worker_killed_mid_task_loses_nothing(local_cluster, local_deal, tmp_path):
    _, client = local_cluster
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
    classroom.deal(tmp_path / "bundles", CLASS, secret, steps=STEPS, codes=CODES,
                   client=client)
    killer.join(timeout=5)
    assert killed, "no worker was seen training"
    assert_same_bundles(tmp_path / "bundles", reference, secret)
    client.wait_for_workers(2, timeout=30)  # the nanny restarted it


def test_a_worker_with_another_version_is_refused(local_cluster, monkeypatch):
    lc, _ = local_cluster
    monkeypatch.setattr(cluster, "engine_version", lambda: "9.9.9+engine9")
    with pytest.raises(cluster.ClusterError, match=r"runs diagnose 0\.\d.*this machine 9\.9\.9"):
        cluster.connect(lc.scheduler_address, timeout=30)


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
    bad = CliRunner().invoke(cli, ["deal", "--key", str(key), "--out", str(tmp_path / "b"),
                                   "--count", "1", "--scheduler", "http://host:8786"])
    assert bad.exit_code == 2 and "use tcp://HOST:PORT" in bad.output


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


def test_a_task_checks_its_runs_against_its_levels_deck(monkeypatch):
    from diagnose import diagnostician

    decks: list[tuple[str, ...]] = []

    def refuse_the_first_round(records, deal, deck):
        decks.append(tuple(deck))
        return len(decks) > 1

    monkeypatch.setattr(diagnostician, "runs_distinguishable", refuse_the_first_round)
    rounds = cluster.plan_rounds(new_secret(), "DDDD-4444", 2, level=3)
    kept, records = cluster.train_scenario(rounds, 3, True, cluster.engine_version())
    assert decks == [diagnostician.DECKS[3]] * 2 and kept == 1  # as a local deal: re-dealt
    assert sorted(records) == ["01", "02", "03", "reference"]
    assert cluster.train_scenario(rounds, 3, False, cluster.engine_version())[0] == 0
