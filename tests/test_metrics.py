"""metrics.jsonl: strict JSON on disk, exact round trip, and one clear line for a broken file."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose.metrics import (
    HEADER_KEYS,
    STEP_KEYS,
    MetricsError,
    make_header,
    read_metrics,
    write_metrics,
)

numbers = st.floats(allow_nan=True, allow_infinity=True, width=64)
optional = st.one_of(st.none(), numbers)

HEADER = make_header(run="01", steps=3, params=103680, vocab_size=64, lr_max=0.025,
                     eval_every=20, entropy_floor=0.2514, ln_vocab=math.log(64))


@st.composite
def records(draw):
    count = draw(st.integers(1, 6))
    return [{
        "step": step, "lr": draw(numbers), "train_loss": draw(numbers),
        "val_loss": draw(optional), "grad_norm_preclip": draw(numbers),
        "grad_norm_postclip": draw(numbers),
        "act_mean_abs": draw(st.lists(numbers, min_size=3, max_size=3)),
        "spectral_norm": draw(st.dictionaries(st.sampled_from(["wte", "h.0.mlp.c_fc.weight"]),
                                              numbers)),
        "dead_heads": draw(st.one_of(st.none(), st.integers(0, 8))),
        "dead_neurons_frac": draw(optional),
    } for step in range(count)]


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b)


@given(rows=records())
def test_round_trip_is_exact_and_strict(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("m") / "metrics.jsonl"
    write_metrics(path, HEADER, rows)
    for line in path.read_text().splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    header, back = read_metrics(path)
    assert header == HEADER and tuple(header) == HEADER_KEYS
    assert all(tuple(r) == STEP_KEYS for r in back)
    assert same(back, rows)


def test_nonfinite_is_written_as_strings(tmp_path):
    row = {k: None for k in STEP_KEYS} | {"step": 0, "lr": 0.1, "train_loss": math.nan,
                                            "grad_norm_preclip": math.inf,
                                            "grad_norm_postclip": -math.inf}
    write_metrics(tmp_path / "m.jsonl", HEADER, [row])
    line = (tmp_path / "m.jsonl").read_text().splitlines()[1]
    assert '"train_loss":"NaN"' in line and '"grad_norm_preclip":"Infinity"' in line
    assert '"grad_norm_postclip":"-Infinity"' in line


@pytest.mark.parametrize(("content", "message"), [
    ("", "empty metrics file"),
    ('{"schema": "other/9"}\n', "expected a header with schema 'diagnose.metrics/1'"),
    ('{"schema": "diagnose.metrics/1"}\n', "header lacks run, steps"),
    (json.dumps(HEADER) + '\n{"step": 0', ":2: not valid JSON (corrupt or truncated)"),
    (json.dumps(HEADER) + '\n[1, 2]\n', ":2: expected a JSON object"),
    (json.dumps(HEADER) + '\n{"step": 0}\n', ":2: expected the keys step, lr"),
])
def test_broken_files_are_one_line(tmp_path, content, message):
    path = tmp_path / "metrics.jsonl"
    path.write_text(content)
    with pytest.raises(MetricsError) as caught:
        read_metrics(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_steps_must_follow_each_other(tmp_path):
    row = {k: None for k in STEP_KEYS} | {"step": 1, "lr": 0.1, "train_loss": 1.0}
    path = tmp_path / "metrics.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(MetricsError, match=":2: expected step 0, got 1"):
        read_metrics(path)


def test_not_a_file(tmp_path):
    with pytest.raises(MetricsError, match="missing metrics file"):
        read_metrics(tmp_path / "nope")
    with pytest.raises(MetricsError, match="is a directory, not a metrics file"):
        read_metrics(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(MetricsError, match="not a regular file"):
        read_metrics(Path(fifo))
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MetricsError, match="not UTF-8 text"):
        read_metrics(tmp_path / "bin")


def _conforms(value, hint) -> bool:
    """`value` is of the annotated type (float admits int, as PEP 484's numeric tower does)."""
    import types
    import typing

    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if origin is typing.NotRequired:
        return _conforms(value, typing.get_args(hint)[0])
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(
            _conforms(k, key) and _conforms(v, item) for k, v in value.items())
    return isinstance(value, hint) and not isinstance(value, bool)


@given(rows=records())
def test_what_is_read_is_what_the_typed_dicts_say(tmp_path_factory, rows):
    """`Header` and `StepRecord` (diagnose.metrics) type the values read back, key by key."""
    import typing

    from diagnose.metrics import Header, StepRecord

    path = tmp_path_factory.mktemp("m") / "metrics.jsonl"
    write_metrics(path, HEADER, rows)
    header, back = read_metrics(path)
    header_hints = typing.get_type_hints(Header)
    step_hints = typing.get_type_hints(StepRecord)
    assert set(header) <= set(header_hints) and Header.__required_keys__ <= set(header)
    assert all(_conforms(v, header_hints[k]) for k, v in header.items()), header
    for record in back:
        assert set(record) == set(step_hints)
        assert all(_conforms(v, step_hints[k]) for k, v in record.items()), record
