"""A break is its folder (issue 36): in a temporary copy of the source tree, one break deleted
(its folder and its line in levels.toml) and one added (a new folder and one levels entry), the
game's own commands and checks run on the copy and stay green.

The copy holds the packages (`scenarios/`, `diagnose/`, `grading/`) and what the checks read
(`bench/deck_texts.py`, `tools/words.py`, `tests/`, docs/course-authors.md); every
command runs in a subprocess whose `PYTHONPATH` puts the copy first, so the catalog, the deal,
the grader and the reveal are the copy's, found as the installed package finds its own
(`importlib.resources`), with no setting that points the code elsewhere. One class is dealt
once for the module (`--steps 2`): a student at the level that lost a break, one at the level
the new break's entry adds.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DELETED = "decay-everything"   # level 3 keeps four breaks and the decoy
ADDED, COPIED_FROM = "doubled-lr", "raised-lr"
NEW_LEVEL = """
[[level]]
number = 4
name = { en = "a break added as a folder", es = "un fallo añadido como carpeta" }
deck = ["doubled-lr", "bad-init", "broken-mask"]
decoy = false
deal = "permutation"
"""
ROSTER = "name,level,lang\nana,3,en\nbea,4,es\n"
WS = Path("experiments")
pytestmark = pytest.mark.slow


def make_tree(root: Path) -> None:
    """The source tree copied, `DELETED` deleted and `ADDED` added, each as a user would."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("scenarios", "diagnose", "grading", "tests"):
        shutil.copytree(ROOT / folder, root / folder, ignore=skip)
    for file in ("bench/deck_texts.py", "bench/fidelity.py", "tools/words.py",
                 "tools/break_words.py",
                 "docs/course-authors.md", "pyproject.toml"):
        (root / file).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / file, root / file)
    breaks = root / "scenarios" / "breaks"
    shutil.rmtree(breaks / DELETED)
    levels = root / "scenarios" / "levels.toml"
    text = levels.read_text(encoding="utf-8")
    assert f', "{DELETED}"' in text
    levels.write_text(text.replace(f', "{DELETED}"', "") + NEW_LEVEL, encoding="utf-8")
    # the new break: a folder copied and edited, its claims on its own run, no page row
    shutil.copytree(breaks / COPIED_FROM, breaks / ADDED, ignore=skip)
    data = breaks / ADDED / "break.toml"
    text = data.read_text(encoding="utf-8")
    text = text.replace(f'slug = "{COPIED_FROM}"', f'slug = "{ADDED}"', 1)
    data.write_text(text.replace("lr_max = 0.0855", "lr_max = 0.057", 1), encoding="utf-8")
    claims = breaks / ADDED / "claims.toml"
    text = re.sub(r"^page = \[.*?\]\n", "", claims.read_text(encoding="utf-8"),
                  flags=re.S | re.M)
    claims.write_text(text.replace(f'"{COPIED_FROM}|', f'"{ADDED}|'), encoding="utf-8")


def command(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`python ARGS` in the copy, its packages first on the path, the home a scratch folder."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DIAGNOSE_DECK", "DIAGNOSE_LEVELS", "PYTHONPATH")}
    env |= {"PYTHONPATH": str(root), "DIAGNOSE_HOME": str(root / "home"),
            "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    if check:
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


def diagnose(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return command(root, "-m", "diagnose", *args, check=check)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The edited copy with one class dealt from it, its answer key read back."""
    root = tmp_path_factory.mktemp("tree")
    make_tree(root)
    diagnose(root, "keygen", "--out", "course.key")
    (root / "roster.csv").write_text(ROSTER, encoding="utf-8")
    diagnose(root, "deal", "--key", "course.key", "--out", "bundles", "--roster", "roster.csv",
             "--steps", "2", "--jobs", "2")
    diagnose(root, "answers", "--key", "course.key", "--bundles", "bundles", "--out", "key.csv")
    with open(root / "key.csv", newline="", encoding="utf-8") as stream:
        truth = {row["student"]: {i: row[i] for i in ("01", "02", "03")}
                 for row in csv.DictReader(stream)}
    return root, truth


def test_the_copy_is_the_code_that_runs(tree):
    root, _ = tree
    where = command(root, "-c", "import scenarios, diagnose, grading; print(scenarios.__file__, "
                    "diagnose.__file__, grading.__file__)").stdout.split()
    assert all(Path(path).is_relative_to(root) for path in where), where


def test_the_catalog_lists_the_new_break_and_not_the_deleted_one(tree):
    root, truth = tree
    listed = diagnose(root, "breaks").stdout
    assert ADDED in listed and DELETED not in listed
    assert "a break added as a folder" in listed       # level 4's name, from its entry
    assert DELETED not in truth["ana"].values()
    assert sorted(truth["bea"].values()) == sorted(["bad-init", "broken-mask", ADDED])


def test_a_dealt_class_is_graded_and_revealed_with_the_new_break(tree):
    root, truth = tree
    for student, held in truth.items():
        (root / f"{student}.md").write_text(
            "".join(f"## {i}\nDiagnosis: {slug}\n" for i, slug in held.items()),
            encoding="utf-8")
        graded = diagnose(root, "grade", "--key", "course.key", "--bundles", "bundles",
                          f"{student}.md")
        assert graded.stdout.startswith(f"{student}  3/3  {student}.md"), graded.stdout
    diagnose(root, "reveal", "--key", "course.key", "--bundles", "bundles", "--out", "back")
    ana = (root / "back" / "ana" / "03-three-failures-ref-level-3.md").read_text(encoding="utf-8")
    bea = (root / "back" / "bea" / "03-three-failures-ref-level-4.md").read_text(encoding="utf-8")
    assert all(f"(`{slug}`)" in ana for slug in truth["ana"].values())
    assert f"(`{ADDED}`)" in bea and bea.startswith("# Soluciones")
    shown = command(root, "-c", "import scenarios; b = scenarios.default_catalog().breaks["
                    f"{ADDED!r}]; print(b.title['es']); print(b.reveal['es'].panels['2'])")
    title, panel = shown.stdout.splitlines()[:2]
    assert title in bea and panel in bea             # its own words, in the student's language
    # the signatures page: no row of the deleted break; the new one is dealt with none
    assert f"| {DELETED} |" not in ana and f"| {ADDED} |" not in bea
    assert "| 3 | high-lr |" in ana and "| 2, 3 | healthy |" in ana


def test_the_deck_texts_check_holds_without_the_deleted_break_and_with_the_new_one(tree):
    root, _ = tree
    checked = command(root, "bench/deck_texts.py", check=False)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-2000:]
    assert not (root / "scenarios" / "breaks" / DELETED).exists()


def test_the_words_check_holds_without_the_deleted_break(tree):
    """tests/test_words.py's catalog rules, run on the copy: a break's words went with its
    folder (its own catalog), so the game's catalog holds none of the deleted break's."""
    root, _ = tree
    checked = command(root, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--noconftest",
                      "-o", "addopts=", "tests/test_words.py", "-k",
                      "catalogs_hold_exactly or each_break_catalog or "
                      "translated_with or compiled_catalog", check=False)
    assert checked.returncode == 0, checked.stdout[-3000:]
