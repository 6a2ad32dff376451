"""A deck changes how the model learns, never the shape of what is written (issue 34, item 11).

A course break overriding the run's length (`steps = 30` gave its run a 31-line file against
3), its evaluations or the model's shape (`n_layers = 1`: another size; `n_layers = 3`: an
IndexError after training) is refused when the deck loads, one line naming the file and key.
A deck's code that raises or calls `sys.exit` at import or in `vote`, `findings`, `computed`
or `checks` is one line naming its signature.py, never a traceback nor a silent exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.diagnosis.signatures import signature
from scenarios import CatalogError
from scenarios.catalog import DECK_SETTING
from scenarios.config import FIELDS, SHAPE_KEYS, SHAPE_SECTIONS
from tests.test_course_deck import BREAK_TOML, SIGNATURE_PY, SLUG, write_course_deck

SHAPED = [k for k, f in FIELDS.items()
          if k in SHAPE_KEYS or f.metadata["section"] in SHAPE_SECTIONS]
VALUE = {"steps": 30, "eval_every": 5, "n_layers": 3, "d_model": 32, "n_heads": 2,
         "d_ff": 64, "vocab_size": 64, "context": 48}


def test_the_shape_keys_are_the_model_table_and_the_run_s_length_and_cadence():
    assert set(SHAPED) == {"vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "context",
                           "steps", "eval_every"}


@pytest.mark.parametrize("key", SHAPED)
def test_a_deck_overriding_length_cadence_or_shape_is_refused_naming_file_and_key(
        tmp_path, monkeypatch, key):
    toml = BREAK_TOML.replace("init_scale = 10.0", f"init_scale = 10.0\n{key} = {VALUE[key]}")
    deck = write_course_deck(tmp_path / "deck", toml)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    out = CliRunner().invoke(cli, ["breaks"], catch_exceptions=False)
    assert out.exit_code == 1
    assert out.output == (f"Error: {deck}/{SLUG}/break.toml: [override] {key}: a break "
                          "changes how the model learns, never the run's length, evaluations "
                          "or model shape (every run of a scenario writes files of one size)\n")


def test_a_what_if_over_the_run_s_length_is_refused_too(tmp_path, monkeypatch):
    toml = BREAK_TOML + '\n[whatif]\nfield = "n_layers"\ndoses = [1, 3]\n'
    deck = write_course_deck(tmp_path / "deck", toml)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    out = CliRunner().invoke(cli, ["breaks"], catch_exceptions=False)
    assert out.exit_code == 1
    assert out.output.startswith(f"Error: {deck}/{SLUG}/break.toml: [whatif] field: n_layers: ")


def test_the_package_s_breaks_override_none_of_them():
    import scenarios

    for brk in scenarios.breaks(None).values():
        assert not set(brk.override) & set(SHAPED), brk.slug


# --- a deck's code ----------------------------------------------------------------------------

BODY = {  # what replaces a method's first line: it raises or exits
    "raise": "        raise ZeroDivisionError('boom')\n",
    "exit": "        import sys; sys.exit(0)\n",
    "exit-1": "        raise SystemExit(1)\n",
}


def broken(method: str, how: str) -> str:
    """The course deck's signature with `method`'s body replaced by `how`."""
    lines = SIGNATURE_PY.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"    def {method}("))
    return "".join(lines[:start + 1]) + BODY[how] + "".join(lines[start + 1:])


@pytest.mark.parametrize("how", ["exit", "exit-1", "raise"])
def test_a_deck_that_exits_or_raises_at_import_is_one_line_at_the_door(tmp_path, how):
    code = BODY[how].strip() + "\n" + SIGNATURE_PY
    deck = write_course_deck(tmp_path / "deck", code=code)
    out = CliRunner().invoke(cli, ["--deck", str(deck), "breaks"], catch_exceptions=False)
    assert out.exit_code == 1, out.output
    assert out.output.count("\n") == 1
    assert out.output.startswith(f"Error: {deck}/{SLUG}/signature.py: cannot be loaded: ")
    assert ("SystemExit" if how.startswith("exit") else "ZeroDivisionError") in out.output


FIG = {"spectral0_ratio": 12.0, "act0_ratio": 11.0}


@pytest.mark.parametrize("how", ["raise", "exit"])
@pytest.mark.parametrize("method", ["vote", "findings", "checks"])
def test_a_deck_s_method_that_raises_or_exits_is_one_line_naming_its_file(
        tmp_path, monkeypatch, method, how):
    deck = write_course_deck(tmp_path / "deck", code=broken(method, how))
    monkeypatch.setenv(DECK_SETTING, str(deck))
    sig = signature(SLUG)
    calls = {"vote": lambda: sig.vote(FIG), "findings": lambda: sig.findings(FIG, {}),
             "checks": lambda: sig.checks(FIG, [], [], {})}
    with pytest.raises(CatalogError) as caught:
        calls[method]()
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"{deck}/{SLUG}/signature.py: HugeInit.{method} failed: "
                           f"{'ZeroDivisionError: boom' if how == 'raise' else 'SystemExit'}")


def test_a_deck_s_computed_that_raises_or_answers_wrong_is_one_line(tmp_path, monkeypatch):
    code = SIGNATURE_PY.split("    def checks")[0] + (
        "    def computed(self, fig, run, reference, header):\n"
        "        return 'all fine'\n")
    toml = BREAK_TOML + '\n[[promises]]\ncomputed = "x"\n'
    deck = write_course_deck(tmp_path / "deck", toml, code=code)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    with pytest.raises(CatalogError) as caught:
        signature(SLUG).checks(FIG, [], [], {})
    assert str(caught.value) == (f"{deck}/{SLUG}/signature.py: HugeInit.computed returned "
                                 "str, not what a signature's computed returns")


def _own_run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    head = {"schema": "diagnose.metrics/1.1", "run": folder.name, "steps": 3,
            "lr_max": 0.001, "recorded": []}
    lines = [json.dumps(head)] + [json.dumps({"step": i, "lr": 0.001, "train_loss": 3.0 - i})
                                  for i in range(3)]
    (folder / "metrics.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["raise", "exit"])
def test_check_with_a_deck_whose_vote_fails_is_one_error_line_never_exit_0(tmp_path, how):
    code = broken("vote", how).replace('needs = ("act_mean_abs", "spectral_norm")', "needs = ()")
    deck = write_course_deck(tmp_path / "deck", code=code)
    run, reference = _own_run(tmp_path / "run"), _own_run(tmp_path / "ref")
    out = CliRunner().invoke(cli, ["--deck", str(deck), "check", str(run), "--reference",
                                   str(reference)], catch_exceptions=False)
    assert out.exit_code == 1
    assert out.output.count("\n") == 1
    assert out.output.startswith(f"Error: {deck}/{SLUG}/signature.py: HugeInit.vote failed: ")


def test_a_deck_whose_levels_deal_one_of_its_breaks_nowhere_warns(tmp_path, monkeypatch):
    """Listed and never played is said, not refused (issue 36: a warning); `breaks` lists it
    apart (tests/test_levels_as_data.py)."""
    deck = write_course_deck(tmp_path / "deck", levels=())
    out = CliRunner().invoke(cli, ["--deck", str(deck), "breaks"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "huge-init" in out.output
    assert "Warning:" in out.output


