"""Every number and every path on the command line is bounded, on every command, by one rule
(`diagnose.cli.params`): out-of-range, non-finite and empty values are one usage line, exit 2,
before anything is read, written or trained."""

from __future__ import annotations

import math

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.cli import cli
from diagnose.cli.params import (
    COUNT_MAX,
    PATH_MAX,
    TIMEOUT_MAX,
    Bounded,
    BoundedFloat,
    LevelChoice,
    PathArg,
)


def options(kind: type) -> list[tuple[str, click.Parameter]]:
    return [(name, param) for name, command in sorted(cli.commands.items())
            for param in command.params if isinstance(param.type, kind)]


NUMBERS = options((click.types.IntParamType, click.types.FloatParamType))
PATHS = options(click.Path)


def flag(param: click.Parameter) -> str:
    return param.opts[0] if isinstance(param, click.Option) else param.human_readable_name


def required_args(name: str, skip: click.Parameter) -> list[str]:
    """What a command needs besides `skip` for click to reach `skip`'s value."""
    args: list[str] = []
    for param in cli.commands[name].params:
        if param is skip or not param.required:
            continue
        args += ["01"] if isinstance(param, click.Argument) else [param.opts[0], "x"]
    return args


def invoke(name: str, param: click.Parameter, value: str):
    args = [name, *required_args(name, param)]
    args += [value] if isinstance(param, click.Argument) else [flag(param), value]
    return CliRunner().invoke(cli, args)


def test_every_number_and_path_option_is_of_a_bounded_type():
    assert NUMBERS and PATHS
    for name, param in NUMBERS:
        assert isinstance(param.type, (Bounded, BoundedFloat)), (name, param.name)
        assert math.isfinite(param.type.min) and math.isfinite(param.type.max), (name, param.name)
    for name, param in PATHS:
        assert isinstance(param.type, PathArg), (name, param.name)


def test_every_level_option_takes_the_levels_of_levels_toml():
    assert sorted(name for name, _ in options(LevelChoice)) == ["deal", "new", "play"]
    assert all(param.name == "level" for _, param in options(LevelChoice))
    for value in ("0", "4", "1.5", "x", "", " "):
        result = CliRunner().invoke(cli, ["new", "--level", value])
        assert result.exit_code == 2 and "is not a level (the levels: 1, 2, 3;" in result.output


def test_the_caps_are_said_in_help():
    for name, param in NUMBERS:
        help_text = CliRunner().invoke(cli, [name, "--help"], terminal_width=200).output
        assert f"{param.type.min:g}<=x<=" in help_text.replace(".0<", "<"), (name, param.name)
    assert f"1 to {COUNT_MAX:,}" in CliRunner().invoke(cli, ["deal", "--help"]).output


def out_of_range(param: click.Parameter) -> st.SearchStrategy[str]:
    low, high = param.type.min, param.type.max
    if isinstance(param.type, Bounded):
        return st.one_of(st.integers(max_value=low - 1), st.integers(min_value=high + 1),
                         st.just("99999999999999999999")).map(str)
    return st.one_of(st.sampled_from(["nan", "inf", "-inf", "1e308", "NaN", "-0.0"]),
                     st.floats(max_value=low, exclude_max=True).map(repr),
                     st.floats(min_value=high, exclude_min=True).map(repr))


@settings(max_examples=60)
@given(data=st.data())
def test_every_number_out_of_its_bounds_is_one_usage_line(data):
    name, param = data.draw(st.sampled_from(NUMBERS), label="option")
    value = data.draw(out_of_range(param), label="value")
    result = invoke(name, param, value)
    assert result.exit_code == 2, (name, param.name, value, result.output)
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [line for line in errors
                      if line.startswith(f"Error: Invalid value for '{flag(param)}'")], errors
    assert len(errors) == 1 and "Traceback" not in result.output


@settings(max_examples=60)
@given(data=st.data())
def test_every_number_within_its_bounds_is_taken_as_given(data):
    name, param = data.draw(st.sampled_from(NUMBERS), label="option")
    low, high = param.type.min, param.type.max
    if isinstance(param.type, Bounded):
        value = data.draw(st.integers(low, high))
    else:
        value = data.draw(st.floats(low, high, allow_nan=False))
    assert param.type.convert(str(value), param, None) == value


@settings(max_examples=60)
@given(data=st.data())
def test_every_empty_or_impossible_path_is_one_usage_line(data):
    name, param = data.draw(st.sampled_from(PATHS), label="option")
    value = data.draw(st.one_of(st.text(" \t\n\r\u3000\u00a0", max_size=4),
                                st.text(max_size=5).map(lambda t: f"a{t}\0{t}"),
                                st.integers(PATH_MAX + 1, 3 * PATH_MAX).map(lambda n: "d" * n)),
                      label="value")
    result = invoke(name, param, value)
    assert result.exit_code == 2, (name, param.name, repr(value), result.output)
    shown = flag(param) if isinstance(param, click.Option) else param.human_readable_name
    assert f"Error: Invalid value for '{shown}'" in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["deal", "--key", "k", "--out", "o", "--count", "99999999999999999999"],
     "Error: Invalid value for '--count': 99999999999999999999 is not in the range "
     f"1<=x<={COUNT_MAX}."),
    (["deal", "--key", "k", "--out", "o", "--count", "2", "--connect-timeout", "nan"],
     "Error: Invalid value for '--connect-timeout': 'nan' is not a finite number (expected "
     f"0.1 to {TIMEOUT_MAX:g})"),
    (["deal", "--key", "k", "--out", "o", "--count", "2", "--connect-timeout", "inf"],
     "Error: Invalid value for '--connect-timeout': 'inf' is not a finite number"),
    (["deal", "--key", "k", "--out", "o", "--count", "2", "--connect-timeout", "1e308"],
     "Error: Invalid value for '--connect-timeout': 1e+308 is not in the range "
     "0.1<=x<=3600.0."),
    (["deal", "--key", "k", "--out", "", "--count", "2"],
     "Error: Invalid value for '--out': an empty path (name a file or folder; '.' is the "
     "current folder)"),
    (["grade", "--key", "k", "--bundles", "", "a.md"],
     "Error: Invalid value for '--bundles': an empty path"),
    (["grade", "--key", "k", "--bundles", "b", "a.md", "--gradescope", ""],
     "Error: Invalid value for '--gradescope': an empty path"),
    (["new", "--dir", ""], "Error: Invalid value for '--dir': an empty path"),
    (["keygen", "--out", ""], "Error: Invalid value for '--out': an empty path"),
    (["grade", ""], "Error: Invalid value for 'FILE...': an empty path"),
])
def test_the_issues_examples(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
    assert list(tmp_path.iterdir()) == []  # nothing written in the current folder
