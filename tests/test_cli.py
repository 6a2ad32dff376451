"""The CLI's skeleton: version, help with an example on every command, and a fast start."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from diagnose import __version__
from diagnose.cli import cli

COMMANDS = sorted(cli.commands)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.output == f"diagnose, version {__version__}\n"


def test_group_help_lists_every_command():
    result = run("--help")
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_with_an_example(name):
    result = run(name, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output
    assert f"diagnose {name}" in result.output


def test_unknown_command_is_usage_error():
    result = run("frobnicate")
    assert result.exit_code == 2
    assert "No such command 'frobnicate'" in result.output


@pytest.mark.parametrize(("lang", "title"), [("en", "Bad initialisation"),
                                               ("es", "Mala inicialización")])
def test_breaks_lists_the_catalog(lang, title):
    result = run("breaks", "--lang", lang)
    assert result.exit_code == 0
    for slug in ("bad-init", "no-warmup", "broken-mask"):
        assert slug in result.output
    assert title in result.output


def test_breaks_refuses_unknown_language():
    result = run("breaks", "--lang", "fr")
    assert result.exit_code == 2
    assert "Invalid value for '--lang'" in result.output


def test_help_imports_neither_numpy_nor_textual():
    code = ("import sys\nfrom diagnose.cli import cli\n"
            "try:\n    cli(['--help'], prog_name='diagnose')\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('numpy', 'textual', 'cryptography') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stdout


@pytest.mark.parametrize("module", ["diagnose", "diagnose.cli"])
def test_python_dash_m_runs_the_command(module):
    done = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("diagnose, version ")
