"""One escaper (`scenarios.escape`) and every field read from a run's header validated
(issue 34, item 12).

ESC and U+202E in a header's `model`/`data`, a run's name, a Diagnosis line or a submitted
file's name reached the terminal and the autograder's output as they were; a header's
`lr_max` as a string, `steps` as "abc", "NaN" or 10**12, a reference's `lr_max` 0 crashed
`show`, `check` and `watch`. Each is a test here, and the escaper's two properties are checked
over generated text: nothing it returns is a control or bidi character, and printable text
comes back as it was.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from diagnose.cli import cli
from diagnose.metrics import MAX_RUN_STEPS, MetricsError, read_metrics
from grading import layout
from grading.seal import new_secret
from scenarios.escape import BIDI_CONTROLS, LINES, escape, escape_json, printable

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import make_workspace  # noqa: E402

HOSTILE = "a\x1b[2J\x1b]0;pwned\x07b\u202eevil\u2066\x9bc\rd"


def acts(char: str) -> bool:
    """A character a terminal or a bidi algorithm obeys instead of showing, or no character."""
    code = ord(char)
    return (code < 0x20 or 0x7F <= code <= 0x9F or char in BIDI_CONTROLS
            or 0xD800 <= code <= 0xDFFF)


# --- the escaper ------------------------------------------------------------------------------

@given(st.text(st.characters(blacklist_categories=())))
def test_escaped_text_holds_no_control_bidi_or_surrogate(text):
    line = escape(text)
    assert not any(map(acts, line))
    line.encode("utf-8")
    lines = escape(text, keep=LINES)
    assert not any(acts(c) and c not in LINES for c in lines)
    assert escape_json({text: [text]}) == {line: [lines]}


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs"))).filter(
    lambda t: not any(map(acts, t))))
def test_printable_text_passes_unchanged(text):
    assert escape(text) == text == printable(text, one_line=True)


def test_the_issue_s_sequences_are_shown_not_obeyed():
    assert escape(HOSTILE) == ("a\\x1b[2J\\x1b]0;pwned\\x07b\\u202eevil\\u2066\\x9bc\\x0dd")
    assert printable("two\nlines\x1b") == "two\nlines\\x1b"
    assert layout.printable is printable  # the old name is the one escaper


# --- run headers: every field validated, text escaped ------------------------------------------

def own_run(folder: Path, **header) -> Path:
    folder.mkdir(parents=True)
    head = {"schema": "diagnose.metrics/1.1", "run": folder.name, "steps": 3,
            "lr_max": 0.001, "recorded": [], **header}
    lines = [json.dumps(head)] + [json.dumps({"step": i, "lr": 0.001, "train_loss": 3.0 - i})
                                  for i in range(3)]
    (folder / "metrics.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(("field", "value", "said"), [
    ("lr_max", "0.001", "expected a number, got '0.001'"),
    ("entropy_floor", "1.2", "expected a number, got '1.2'"),
    ("steps", "abc", "expected a number, got 'abc'"),
    ("steps", "NaN", "expected a whole number from 1 to"),
    ("steps", 10**12, "expected a whole number from 1 to"),
    ("steps", 2.5, "expected a whole number from 1 to"),
    ("lr_max", 0, "expected a finite number above 0, got 0"),
    ("lr_max", "Infinity", "expected a finite number above 0"),
    ("eval_every", 0, "expected a whole number from 1 to"),
    ("model", ["x"], "expected a name of at most 200 characters"),
    ("run", "", "expected a name of at most 200 characters"),
])
def test_a_header_field_of_the_wrong_kind_is_one_error_line(tmp_path, field, value, said):
    run = own_run(tmp_path / "run", **{field: value})
    with pytest.raises(MetricsError) as caught:
        read_metrics(run / "metrics.jsonl")
    assert str(caught.value).startswith(f"{run / 'metrics.jsonl'}:1: header's {field}: ")
    assert said in str(caught.value)
    good = own_run(tmp_path / "good")
    for command in (["show", str(run)], ["check", str(run), "--reference", str(good)],
                    ["check", str(good), "--reference", str(run)]):
        result = CliRunner().invoke(cli, command, catch_exceptions=False)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and said in result.output
        assert len(result.output.splitlines()) == 1


def test_a_reference_with_lr_max_0_is_one_error_line_not_a_division(tmp_path):
    run = own_run(tmp_path / "run")
    reference = own_run(tmp_path / "ref", lr_max=0)
    result = CliRunner().invoke(cli, ["check", str(run), "--reference", str(reference)],
                                catch_exceptions=False)
    assert result.exit_code == 1
    assert "header's lr_max: expected a finite number above 0, got 0" in result.output


def test_the_largest_steps_a_file_can_hold_still_reads(tmp_path):
    run = own_run(tmp_path / "run", steps=MAX_RUN_STEPS, entropy_floor=1, params=10)
    header, records = read_metrics(run / "metrics.jsonl")
    assert header["steps"] == MAX_RUN_STEPS and header["entropy_floor"] == 1.0
    assert len(records) == 3 and not math.isnan(header["lr_max"])


def test_a_header_s_control_and_bidi_characters_reach_no_terminal(tmp_path):
    run = own_run(tmp_path / "run", run="r\x1b[2Jun\u202e", model="m\x1b]0;x\x07",
                  data="d\u2067\x9b")
    header, _ = read_metrics(run / "metrics.jsonl")
    assert header["run"] == "r\\x1b[2Jun\\u202e" and header["data"] == "d\\u2067\\x9b"
    good = own_run(tmp_path / "good", model="m\x1b]0;x\x07", data="d\u2067\x9b")
    for command in (["show", str(run)], ["check", str(run), "--reference", str(good)],
                    ["check", str(run), "--json", "--reference", str(good)]):
        result = CliRunner().invoke(cli, command, catch_exceptions=False)
        assert result.output.strip(), command
        assert not any(acts(c) and c not in LINES for c in result.output), command


def test_a_diagnoses_file_s_name_and_lines_reach_no_terminal_and_styles_still_apply(tmp_path):
    """`grade --check` echoes the file's name and each Diagnosis line; with colour on, the
    styles are ours and the student's ESC is shown as text."""
    make_workspace(tmp_path / "ws", new_secret(), code="AAAA-2222")
    file = tmp_path / "ana\x1b[2J\u202e.md"
    file.write_text("# Diagnoses \u2014 ana\x1b]0;x\x07\n<!-- scenario: AAAA-2222 -->\n\n"
                    "## 01\nDiagnosis: \x1b[31mno-warmup\u202e or bad-init\n\n"
                    "## 02\nDiagnosis: bad-init\x9b\n", encoding="utf-8")
    for color in (False, True):
        result = CliRunner().invoke(cli, ["grade", "--check", str(file), "--dir",
                                          str(tmp_path / "ws")], color=color,
                                    catch_exceptions=False)
        text = result.output
        assert result.exit_code == 0, text
        assert "ana\\x1b[2J\\u202e.md" in text  # the name, shown
        assert not any(acts(c) and c not in LINES + "\x1b" for c in text)
        shown_escs = text.count("\x1b")
        if color:  # click's styles, and no other escape sequence
            assert shown_escs and all(text[i:i + 2] == "\x1b[" for i in range(len(text))
                                      if text[i] == "\x1b")
            assert "\x1b[2J" not in text and "\x1b[31mno" not in text
        else:
            assert shown_escs == 0


@pytest.mark.parametrize("key", ["steps", "eval_every", "params", "vocab_size", "heads_total",
                                 "neurons_total"])
def test_the_recorder_refuses_a_header_the_readers_would_refuse(tmp_path, key):
    from diagnose.metrics import HEADER_COUNTS
    from diagnose.runs.record import Recorder, RecordError, RunInfo

    fields = {"run": "r", "steps": 3, "lr_max": 0.001, key: HEADER_COUNTS[key][1] + 1}
    with pytest.raises(RecordError, match=f"^{key}: expected at most "):
        Recorder(tmp_path / "m.jsonl", RunInfo(**fields))
    assert not (tmp_path / "m.jsonl").exists()
