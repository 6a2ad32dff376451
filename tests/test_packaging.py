"""The built wheel carries the three packages and the TOML catalog, and nothing of the tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the tracked tree")
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (path,) = out.glob("diagnose-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_holds_the_catalog(wheel):
    names = set(wheel.namelist())
    assert "scenarios/healthy.toml" in names
    for slug in ("bad-init", "no-warmup", "broken-mask"):
        assert f"scenarios/breaks/{slug}.toml" in names
    for package in ("diagnose", "grading", "scenarios"):
        assert f"{package}/__init__.py" in names
    # files the app reads with importlib.resources at run time
    for resource in ("diagnose/dashboard/dashboard.css", "diagnose/dashboard/dashboard.js",
                     "diagnose/tui/play.tcss"):
        assert resource in names
    assert not any(name.startswith(("tests/", "bench/")) for name in names)


def test_wheel_declares_the_console_script(wheel):
    (entry,) = [n for n in wheel.namelist() if n.endswith("entry_points.txt")]
    assert "diagnose = diagnose.cli:main" in wheel.read(entry).decode()
