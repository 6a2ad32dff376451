"""The scenario engine: the deal, the sealed workspace that leaks nothing, and its commands.

Training is real but short (a few dozen steps per run); one scenario is made per module and
shared by the read-only checks.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import scenarios
from diagnose.classroom import deal as classroom
from diagnose.cli import cli
from diagnose.game.dealing import (
    ScenarioError,
    check_code,
    new_code,
    plan_rounds,
    redeal_message,
    train_rounds,
)
from diagnose.game.scenario import ScenarioSpec, create_scenario, workspace_lock
from diagnose.game.training import Cancelled, TrainingCallbacks
from diagnose.workspace import open_workspace
from grading.dealt import assignment
from grading.seal import SealError, new_secret, read_key_file, unseal, write_key_file

STEPS = 5  # any length deals, seals and reveals the same way; five steps train little
SLUGS = ["bad-init", "no-warmup", "broken-mask"]
LAB = scenarios.level(1)  # levels.toml's first entry: the lab's three, in a permutation


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- the deal ---------------------------------------------------------------------------

def test_permutation_is_uniform_over_the_six_orders():
    secret = b"k" * 44
    counts = collections.Counter(
        tuple(assignment(secret, f"code-{i}", LAB).values()) for i in range(6000))
    assert len(counts) == 6
    expected = 1000
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 20.5  # p = 0.001 at 5 degrees of freedom


def test_permutation_depends_on_secret_and_code_only():
    a, b = new_secret(), new_secret()
    listed_backwards = dataclasses.replace(LAB, deck=tuple(reversed(LAB.deck)))
    assert assignment(a, "X", LAB) == assignment(a, "X", listed_backwards)
    differs = sum(assignment(a, f"c{i}", LAB) != assignment(b, f"c{i}", LAB)
                  for i in range(50))
    assert differs > 25


def test_codes():
    code = new_code()
    assert len(code) == 9 and code[4] == "-"
    assert check_code("week 3: lab ü") == "week 3: lab ü"
    for bad in ("", "x" * 65, " padded", "tab\there", "new\nline"):
        with pytest.raises(ScenarioError):
            check_code(bad)


@given(refused=st.integers(0, 5))
def test_rounds_train_until_told_apart_and_the_last_is_kept_whatever_it_shows(refused):
    """The one re-deal loop (local deals and a cluster's tasks): each refused round but the last
    is announced, the first accepted round is kept, and no round trains after it."""
    rounds = plan_rounds(b"k" * 32, "LOOP-0001", 3, level=1)
    trained, announced = [], []

    def train(plans):
        trained.append([plan.seed for plan in plans])
        return {plan.run: [{"step": 0, "seed": plan.seed}] for plan in plans}

    def check(records, deal):
        assert set(deal) == set(records) - {"reference"}
        return len(trained) > refused

    kept, records = train_rounds(rounds, train, check, announced.append)
    assert kept == min(refused, len(rounds) - 1) and len(trained) == kept + 1
    assert announced == list(range(kept))
    assert records["reference"][0]["seed"] == rounds[kept][1][0].seed
    assert len({seeds[0] for seeds in trained}) == len(trained)  # every round: fresh seeds
    assert train_rounds(rounds, train, None)[0] == 0  # no check: the first round stands
    assert "LOOP-0001" in redeal_message("LOOP-0001", 0) and "(deal 1)" in redeal_message("X", 0)


def test_a_spec_is_one_checked_value():
    spec = ScenarioSpec(steps=5)
    assert len(spec.code) == 9 and spec.steps == 5 and spec.lang == "en"
    assert spec.entry.deck == ("bad-init", "no-warmup", "broken-mask") and spec.level == 1
    assert spec.key == "self-study"
    assert ScenarioSpec().steps == scenarios.healthy_config().steps
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.steps = 6
    for bad, message in [({"lang": "fr"}, "--lang must be one of en, es"),
                         ({"code": "a-->"}, "cannot hold")]:
        with pytest.raises(ScenarioError, match=message):
            ScenarioSpec(**bad)


# --- one real scenario ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("scenario")
    secret = new_secret()
    seen: list[tuple[str, int]] = []
    workspace = create_scenario(
        root / "experiments" / "19-break-it", ScenarioSpec(code="TEST-0001", steps=STEPS),
        secret=secret,
        callbacks=TrainingCallbacks(on_step=lambda run, rec: seen.append((run, rec["step"]))))
    return workspace, secret, seen


def student_visible(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*")) if p.is_file() and p.name != "answer-key.sealed"]


def test_workspace_layout(made):
    workspace, secret, seen = made
    assert workspace.code == "TEST-0001" and workspace.ids == ("01", "02", "03")
    names = {p.relative_to(workspace.path).as_posix() for p in workspace.path.rglob("*")}
    assert names == {"scenario.json", "answer-key.sealed", *(
        f"{run}{suffix}" for run in ("reference", "01", "02", "03")
        for suffix in ("", "/metrics.jsonl", "/dashboard.html"))}
    assert sorted(set(seen)) == sorted({(r, s) for r in workspace.runs for s in range(STEPS)})
    assert unseal(workspace.sealed_text(), secret, "TEST-0001") == assignment(
        secret, "TEST-0001", LAB)


def test_nothing_a_student_sees_tells_the_break(made):
    workspace, secret, _ = made
    catalog = scenarios.breaks()
    words = {w.lower() for b in catalog.values() for lang in ("en", "es")
             for w in (b.slug, b.title[lang], *b.words[lang]) if len(w) > 4}
    words |= {key for b in catalog.values() for key in b.override}
    for path in student_visible(workspace.path):
        text = path.read_text(encoding="utf-8").lower()
        for word in words:
            assert word not in text, f"{path.name} says {word!r}"
    headers = [json.loads(workspace.metrics_path(r).read_text().splitlines()[0])
               for r in workspace.runs]
    for header in headers:
        header.pop("run")
    assert all(h == headers[0] for h in headers)
    mtimes = {p.stat().st_mtime for p in workspace.path.rglob("*")}
    assert len(mtimes) == 1, "files must share one mtime"
    scenario = json.loads((workspace.path / "scenario.json").read_text())
    assert set(scenario) == {"schema", "code", "engine_version", "steps", "ids", "key", "level"}


def test_same_code_and_secret_give_the_same_bits(made, tmp_path):
    workspace, secret, _ = made
    again = create_scenario(tmp_path / "again", ScenarioSpec(code="TEST-0001", steps=STEPS),
                            secret=secret)
    for run_name in workspace.runs:
        assert (again.metrics_path(run_name).read_bytes()
                == workspace.metrics_path(run_name).read_bytes())


def test_cancel_leaves_nothing(tmp_path):
    target = tmp_path / "ws"
    with pytest.raises(Cancelled):
        create_scenario(target, ScenarioSpec(steps=STEPS), secret=new_secret(),
                        callbacks=TrainingCallbacks(should_stop=lambda: True))
    assert list(tmp_path.iterdir()) == []


def test_refusals(made, tmp_path):
    workspace, secret, _ = made
    with pytest.raises(ScenarioError, match="a scenario is already here; use --force"):
        create_scenario(workspace.path, ScenarioSpec(steps=STEPS), secret=secret)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ScenarioError, match="holds other files, not a scenario"):
        create_scenario(other, ScenarioSpec(steps=STEPS), secret=secret)
    assert (other / "notes.txt").read_text() == "mine"
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ScenarioError, match="exists and is not a directory"):
        create_scenario(afile, ScenarioSpec(steps=STEPS), secret=secret)
    with pytest.raises(ScenarioError, match="--steps must be between 1 and 5000, got 0"):
        create_scenario(tmp_path / "new", ScenarioSpec(steps=0), secret=secret)


def test_a_second_writer_is_refused(tmp_path):
    target = tmp_path / "ws"
    with workspace_lock(target):
        result = run("new", "--dir", str(target), "--steps", "5")
        assert (tmp_path / ".ws.lock").exists(), "a refused writer must leave the lock alone"
        with (pytest.raises(ScenarioError, match="another diagnose is writing"),
              workspace_lock(target)):
            pass
    assert result.exit_code == 1
    assert "another diagnose is writing this scenario right now" in result.output
    assert not target.exists()
    assert not (tmp_path / ".ws.lock").exists()


# --- the commands --------------------------------------------------------------------------

def test_new_then_reveal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "--steps", str(STEPS), "--seed", "my lab")
    assert result.exit_code == 0, result.output
    assert "Scenario my lab ready in experiments/19-break-it" in result.output
    secret_file = Path(os.environ["DIAGNOSE_HOME"]) / "self-study.key"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    result = run("reveal", "--json")
    assert result.exit_code == 0
    truth = json.loads(result.output)
    assert truth == assignment(read_key_file(secret_file), "my lab", LAB)
    solutions = tmp_path / "solutions" / "03-three-failures-ref.md"
    text = solutions.read_text(encoding="utf-8")
    for rid, slug in truth.items():
        assert f"## {rid} — " in text and f"(`{slug}`)" in text
    assert (tmp_path / "experiments" / "19-break-it" / "reveal.json").exists()
    result = run("reveal", "--lang", "es")
    assert "Máscara causal rota" in result.output


def test_new_refuses_bad_steps():
    result = run("new", "--steps", "0")
    assert result.exit_code == 2
    assert "Invalid value for '--steps': 0 is not in the range 1<=x<=5000." in result.output


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: None, "no such directory; make a scenario with `diagnose new`"),
    (lambda d: d.mkdir(), "no scenario here (scenario.json is missing)"),
    (lambda d: (d.mkdir(), (d / "scenario.json").write_text("{not json")),
     "scenario.json: corrupt (expected schema diagnose.scenario/1"),
])
def test_reveal_without_a_scenario(tmp_path, setup, message):
    target = tmp_path / "ws"
    setup(target)
    result = run("reveal", "--dir", str(target))
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and message in result.output


def test_reveal_with_a_missing_or_corrupt_metrics_file(made, tmp_path, private_home):
    import shutil

    workspace, secret, _ = made
    write_key_file(private_home / "self-study.key", secret)
    copy = tmp_path / "copy"
    shutil.copytree(workspace.path, copy)
    (copy / "02" / "metrics.jsonl").unlink()
    result = run("reveal", "--dir", str(copy))
    assert result.exit_code == 1
    assert result.output == f"Error: {copy / '02' / 'metrics.jsonl'}: missing metrics file\n"
    (copy / "02" / "metrics.jsonl").write_text('{"schema": "diagnose.metrics/1"')
    result = run("reveal", "--dir", str(copy))
    assert result.exit_code == 1
    assert "metrics.jsonl:1: not valid JSON (corrupt or truncated)" in result.output
    assert not (tmp_path / "solutions").exists()


def test_reveal_with_another_secret(made, private_home):
    workspace, _, _ = made
    write_key_file(private_home / "self-study.key", new_secret())
    result = run("reveal", "--dir", str(workspace.path))
    assert result.exit_code == 1
    assert "the answer key was sealed with another key" in result.output


def test_keygen(tmp_path):
    key = tmp_path / "course.key"
    result = run("keygen", "--out", str(key))
    assert result.exit_code == 0
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    read_key_file(key)
    result = run("keygen", "--out", str(key))
    assert result.exit_code == 1
    assert "already exists; a key is never overwritten" in result.output


def test_roster_names(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("# class A\nana\n\nJosé_García\nbo b\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"roster.txt:5: 'bo b' is not a safe directory"):
        classroom.read_roster(roster)
    roster.write_text("ana\n../etc\n")
    with pytest.raises(ScenarioError, match=r":2: '../etc' is not a safe directory name"):
        classroom.read_roster(roster)
    roster.write_text("ana\nAna\n")
    with pytest.raises(ScenarioError, match=r":2: 'Ana' repeats 'ana' \(line 1\)"):
        classroom.read_roster(roster)
    roster.write_text("ana\nJosé_García\n")
    assert [s.name for s in classroom.read_roster(roster)] == ["ana", "José_García"]


def test_deal_seals_with_the_instructor_key_and_resumes(tmp_path):
    key = tmp_path / "course.key"
    assert run("keygen", "--out", str(key)).exit_code == 0
    roster = tmp_path / "roster.txt"
    roster.write_text("ana\nbeto\n")
    out = tmp_path / "bundles"
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", str(STEPS))
    assert result.exit_code == 0, result.output
    manifest = (out / "manifest.csv").read_text().splitlines()
    assert manifest[0] == "student,code,email,level,lang" and len(manifest) == 3
    secret = read_key_file(key)
    codes = {}
    for line in manifest[1:]:
        student, code, *_ = line.split(",")
        workspace = open_workspace(out / student / "experiments" / "19-break-it")
        assert workspace.key == "instructor" and workspace.code == code
        assert sorted(unseal(workspace.sealed_text(), secret, code).values()) == sorted(SLUGS)
        with pytest.raises(SealError, match="sealed with another key"):
            unseal(workspace.sealed_text(), new_secret(), code)
        codes[student] = code
    assert len(set(codes.values())) == 2
    roster.write_text("ana\nbeto\ncarla\n")
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", str(STEPS))
    assert result.exit_code == 0, result.output
    assert "ana: " + codes["ana"] + " kept (already dealt)" in result.output
    assert len((out / "manifest.csv").read_text().splitlines()) == 4


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--count", "2"], 2, "Missing option '--key'"),
    (["--key", "K", "--out", "O"], 2, "give exactly one of --roster FILE or --count N"),
    (["--key", "nokey", "--out", "O", "--count", "1"], 1, "nokey: no such key file"),
])
def test_deal_usage(tmp_path, monkeypatch, args, code, message):
    monkeypatch.chdir(tmp_path)
    result = run("deal", *args)
    assert result.exit_code == code
    assert message in result.output


def test_deal_refuses_a_readable_key(tmp_path):
    key = tmp_path / "course.key"
    key.write_bytes(new_secret())
    key.chmod(0o644)
    result = run("deal", "--key", str(key), "--out", str(tmp_path / "o"), "--count", "1")
    assert result.exit_code == 1
    assert "let others read the key; run `chmod 600" in result.output


def test_losses_are_finite_numbers_or_marked(made):
    workspace, _, _ = made
    for run_name in workspace.runs:
        _, records = workspace.read_run(run_name)
        assert len(records) == STEPS
        assert all(isinstance(r["train_loss"], float) for r in records)
        assert all(not math.isnan(r["lr"]) for r in records)
