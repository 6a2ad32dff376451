"""`grading` imports only the stdlib, cryptography, filelock (a class grading's lock) and
scenarios (architecture §2), and the
CLI hands it the diagnostician's numbers and reveals after a self-study grading."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from grading_testkit import home_secret, make_workspace

from diagnose.cli import cli

ROOT = Path(__file__).resolve().parents[2]
# A whole grading, from writing a file to a gradebook, in a fresh interpreter.
PIPELINE = """
import json, sys, tempfile
from pathlib import Path
before = set(sys.modules)
import grading
from grading.seal import new_secret, seal
secret, root = new_secret(), Path(tempfile.mkdtemp())
ws = root / "b" / "s" / "experiments" / "19-break-it"
ws.mkdir(parents=True)
(root / "b" / "manifest.csv").write_text("student,code\\ns,C\\n")
from grading.dealt import assignment
from scenarios.levels import level
truth = assignment(secret, "C", level(1))  # what `deal` derived: the grader derives it too
(ws / "scenario.json").write_text(json.dumps({"schema": "diagnose.scenario/1", "code": "C",
    "engine_version": "x", "steps": 1, "ids": sorted(truth), "key": "instructor"}))
(ws / "answer-key.sealed").write_text(seal("C", truth, secret))
(root / "s.md").write_text(grading.format_diagnoses("s", "C", {"01": (truth["01"], "x")}))
graded = grading.grade_bundles([root / "s.md"], root / "b", secret)
grading.write_gradebook(grading.gradebook_rows(root / "b", secret), root / "g.csv")
print(graded[0].report.render())
new = {m.split(".")[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names)
print(json.dumps(sorted(new)))
"""
FORBIDDEN = {"numpy", "textual", "rich", "click", "diagnose", "platformdirs"}
ALLOWED = {"grading", "scenarios", "cryptography", "cffi", "_cffi_backend", "_openssl",
           "filelock"}


def test_grading_imports_only_the_stdlib_cryptography_and_scenarios():
    done = subprocess.run([sys.executable, "-c", PIPELINE], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    *report, modules = done.stdout.splitlines()
    assert "Score: 1/3" in report
    loaded = set(json.loads(modules))
    assert not loaded & FORBIDDEN
    assert loaded <= ALLOWED, loaded - ALLOWED


def test_the_cli_shows_the_runs_numbers_and_reveals(tmp_path, monkeypatch):
    import diagnose.diagnosis.reveal

    monkeypatch.chdir(tmp_path)
    workspace = make_workspace(Path("experiments/19-break-it"), home_secret())
    Path("d.md").write_text("## 01\nDiagnosis: bad init\n")
    asked = []

    def evidence(path, lang, assignment):
        asked.append((Path(path), lang, assignment))
        return {"01": ["Panel 2: lr 3.0e-02 at step 0, the reference 1.5e-03"]}

    def write_solutions(path, lang, *, secret, by):
        Path(path, "reveal.json").write_text("{}")
        return Path("solutions/03-three-failures-ref.md")

    monkeypatch.setattr(diagnose.diagnosis.reveal, "evidence", evidence)
    monkeypatch.setattr(diagnose.diagnosis.reveal, "write_solutions", write_solutions)
    result = CliRunner().invoke(cli, ["grade", "--yes", "d.md", "--lang", "es"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and result.stderr == ""
    assert asked == [(workspace, "es", {"01": "no-warmup", "02": "broken-mask",
                                        "03": "bad-init"})]
    assert ("    En esta ejecución:\n"
            "      Panel 2: lr 3.0e-02 at step 0, the reference 1.5e-03\n") in result.stdout
    assert result.stdout.endswith("Soluciones: solutions/03-three-failures-ref.md\n")

    def broken(*args):
        raise ValueError("a bug in the diagnostician")

    monkeypatch.setattr(diagnose.diagnosis.reveal, "evidence", broken)
    result = CliRunner().invoke(cli, ["grade", "--yes", "d.md"], catch_exceptions=False)
    assert result.exit_code == 0  # the numbers are a hint; the grade stands without them
    assert "In this run:" not in result.stdout
