"""The house by feature (issue 36): every old flat import path still works for one release, is the
module at its new path (the same object), and warns naming the new path; a course deck whose
signature.py imports an old path loads and the command line says so in one warning line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
DECK = ROOT / "tests" / "data" / "course-deck"

PROBE = """
import importlib, json, warnings
from diagnose.moved import MOVED
out = {}
for old, new in MOVED.items():
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    out[old] = [module is importlib.import_module(new), module.__name__,
                module.__spec__.name, [str(w.message) for w in said
                                       if issubclass(w.category, DeprecationWarning)]]
from diagnose import signatures   # the form an earlier deck's signature.py used
out["from"] = signatures.__name__
print(json.dumps(out))
"""


def test_every_old_path_is_the_new_module_and_warns_once_naming_it():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    found = json.loads(done.stdout)
    assert found.pop("from") == "diagnose.diagnosis.signatures"
    for old, new in MOVED.items():
        same, name, spec, said = found[old]
        assert same and name == new and spec == new, old
        assert said == [f"{old} is now {new}; import that instead (the old name goes in the "
                        "next release)"], old


def test_no_module_of_the_package_sits_at_an_old_path():
    """The table names only paths that are gone: a module left behind would shadow nothing but
    would be a second copy of an idea."""
    for old in MOVED:
        relative = Path(*old.split("."))
        assert not (ROOT / relative).with_suffix(".py").exists(), old
        assert not (ROOT / relative / "__init__.py").exists(), old


def test_a_deck_importing_an_old_path_loads_and_says_it_once(tmp_path):
    """The old path is one Warning line; the deck's own warnings are left as raised."""
    deck = tmp_path / "deck"
    shutil.copytree(DECK, deck, ignore=shutil.ignore_patterns("__pycache__"))
    code = deck / "huge-init" / "signature.py"
    text = code.read_text(encoding="utf-8")
    assert "from diagnose.diagnosis.signatures import" in text
    code.write_text(text.replace(
        "from diagnose.diagnosis.signatures import",
        "import warnings\n\nwarnings.warn('the deck author\\'s own note', UserWarning)\n"
        "from diagnose.signatures import"), encoding="utf-8")
    probe = ("import sys\nfrom diagnose.cli import main\n"
             f"sys.argv = ['diagnose', '--deck', {str(deck)!r}, 'breaks']\nmain()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                             "DIAGNOSE_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    assert "huge-init" in done.stdout
    warned = [line for line in done.stderr.splitlines() if "is now" in line]
    assert len(warned) == 1, done.stderr
    assert warned[0].startswith("Warning: ") and "huge-init/signature.py: " in warned[0]
    assert warned[0].endswith("diagnose.signatures is now diagnose.diagnosis.signatures; import "
                              "that instead (the old name goes in the next release)")
    # any other warning of the deck's code goes on as Python raised it, not swallowed
    assert f"{code}:5: UserWarning: the deck author's own note" in done.stderr.splitlines()


def test_the_feature_faces_name_what_their_modules_define():
    import importlib

    for package in ("game", "classroom", "runs", "views", "diagnosis"):
        face = importlib.import_module(f"diagnose.{package}")
        for name in face.__all__:
            assert getattr(face, name) is not None, (package, name)
        assert set(face.__all__) <= set(dir(face))


def test_help_still_loads_the_same_few_modules():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0


def test_a_script_on_an_old_path_is_told_at_its_own_line(tmp_path):
    """Python's default filters show a DeprecationWarning raised in the script being run: the
    warning names the script's line, not the import system's."""
    script = tmp_path / "mine.py"
    script.write_text("import diagnose.scenario\nfrom diagnose import signatures\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True, cwd=tmp_path)
    assert done.stderr.splitlines()[0::2] == [
        f"{script}:1: DeprecationWarning: diagnose.scenario is now diagnose.game.scenario; "
        "import that instead (the old name goes in the next release)",
        f"{script}:2: DeprecationWarning: diagnose.signatures is now "
        "diagnose.diagnosis.signatures; import that instead (the old name goes in the next "
        "release)"]
