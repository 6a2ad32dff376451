"""ruff, as configured in pyproject.toml, finds nothing: lint is part of the test command."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_import_circles():
    """No module of the three packages reaches itself through imports, counting those inside
    functions and under TYPE_CHECKING (tools/imports.py reads them from the source)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import imports
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert imports.circles(imports.graph()) == []


def test_the_circle_finder_finds_a_circle_inside_a_function(tmp_path):
    """The finder itself: a circle closed by an import inside a function counts."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import imports
    finally:
        sys.path.remove(str(ROOT / "tools"))
    (tmp_path / "scenarios").mkdir()
    for package in ("diagnose", "grading"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "scenarios" / "__init__.py").write_text("")
    (tmp_path / "scenarios" / "a.py").write_text("from scenarios.b import x\n")
    (tmp_path / "scenarios" / "b.py").write_text("def x():\n    from . import a\n")
    assert imports.circles(imports.graph(tmp_path)) == [
        ["scenarios.a", "scenarios.b", "scenarios.a"]]
