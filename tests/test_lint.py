"""ruff, import-linter's contracts and the import-circle finder, as configured in pyproject.toml
and tools/imports.py, find nothing: lint is part of the test command."""

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


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        lint = Path(shutil.which("lint-imports") or lint)
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]' brings it)")
    return subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=root)


def test_the_layer_contracts_are_kept():
    """pyproject.toml's [tool.importlinter] contracts: scenarios <- grading <- diagnose, grading
    without numpy or Textual, the engine without a view, the features independent."""
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 broken" in result.stdout


def test_a_contract_catches_an_import_inside_a_function(tmp_path):
    """The contracts are not vacuous: grading importing numpy inside a function (in a copy of
    the packages) breaks the bare-server contract, and so does scenarios importing diagnose."""
    for name in ("diagnose", "grading", "scenarios"):
        shutil.copytree(ROOT / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__", "__snapshots__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with (tmp_path / "grading" / "seal.py").open("a") as out:
        out.write("\n\ndef _numbers():\n    import numpy\n\n    return numpy\n")
    with (tmp_path / "scenarios" / "langs.py").open("a") as out:
        out.write("\n\ndef _game():\n    from diagnose import cli\n\n    return cli\n")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1
    assert "grading is not allowed to import numpy" in result.stdout
    assert "scenarios.langs -> diagnose.cli" in result.stdout


def test_the_types_check():
    """mypy, as pyproject.toml's [tool.mypy] says: strict on scenarios/ and grading/, and on
    diagnose's records (metrics, record, figures) and the modules that read them."""
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (pip install -e '.[test]' brings it)")
    result = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
