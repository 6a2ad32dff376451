"""The arithmetic between values and cells (scale) and what a panel draws (frames)."""

import dataclasses
import math

import pytest

from diagnose.tui.drawing.frames import panel_frame, short_label, shown_series
from diagnose.tui.drawing.scale import row_of, ticks, window, windowed
from diagnose.tui.drawing.state import RunStore, View
from diagnose.views.columns import bucket, columns, cursor_columns, held, summarise
from diagnose.views.panels import envelope, panels_for

PANELS = {p.key: p for p in panels_for([])}


def test_held_carries_measured_values_forward_and_starts_empty():
    assert held([None, 1.0, None, None, 2.0, None]) == [None, 1.0, 1.0, 1.0, 2.0, 2.0]


def test_window_and_padding_for_steps_not_trained_yet():
    assert window(400, zoom=False) == range(400)
    assert window(400, zoom=True) == range(20)
    assert window(12, zoom=True) == range(12)
    assert windowed([1.0, 2.0], range(4)) == [1.0, 2.0, None, None]


@pytest.mark.parametrize("count,width", [(400, 25), (40, 19), (20, 60), (7, 7), (1, 5)])
def test_buckets_cover_every_value_once_in_order(count, width):
    seen = [i for c in range(width) for i in bucket(count, width, c)]
    assert sorted(set(seen)) == list(range(count))
    assert seen == sorted(seen)
    assert all(len(bucket(count, width, c)) >= 1 for c in range(width))


def test_a_column_keeps_spikes_and_never_averages_a_nan_away():
    assert summarise([1.0, 9.0, 2.0]) == 9.0
    assert math.isnan(summarise([1.0, math.inf, math.nan]))
    assert summarise([1.0, -math.inf]) == -math.inf
    assert summarise([None, None]) is None
    assert columns([1.0, 5.0, math.nan, 2.0], 2)[0] == 5.0
    assert math.isnan(columns([1.0, 5.0, math.nan, 2.0], 2)[1])


def test_cursor_columns_widen_when_zoomed_in():
    assert cursor_columns(3, 400, 25) == [0]
    assert cursor_columns(399, 400, 25) == [24]
    assert cursor_columns(1, 4, 8) == [2, 3]
    assert cursor_columns(9, 4, 8) == []


def test_ticks_are_round_and_land_on_rows_from_top_to_bottom():
    values = ticks((0.2, 500.0), log=True, count=4)
    assert values[:2] == [500.0, 0.2] and {1.0, 10.0, 100.0} <= set(values)
    assert ticks((0.0, 0.03), log=False, count=3)[2:] == [0.01, 0.02]
    assert row_of(500.0, (0.2, 500.0), True, 9) == 0
    assert row_of(0.2, (0.2, 500.0), True, 9) == 8


def test_short_labels_fit_a_compact_row():
    labels = [short_label(s, lang) for p in PANELS.values() for s in p.series
              for lang in ("en", "es")]
    assert max(map(len, labels)) <= 6  # the stylesheet's label column
    assert len({short_label(s, "en") for s in PANELS["spectral"].series}) == 9


def test_the_envelope_replaces_nine_spectral_rows_when_they_do_not_fit():
    spectral = PANELS["spectral"]
    assert shown_series(spectral, rows=None, overlay=False) == spectral.series
    assert shown_series(spectral, rows=9, overlay=False) == spectral.series
    assert [short_label(s, "en") for s in shown_series(spectral, rows=5, overlay=False)] == [
        "max", "min"]
    # Two panels' envelopes are two series (RunStore caches values by key).
    assert {s.key for s in envelope(spectral)}.isdisjoint(s.key for s in envelope(PANELS["act"]))
    assert shown_series(PANELS["loss"], rows=1, overlay=True) == PANELS["loss"].series
    top, bottom = envelope(spectral)
    record = {"spectral_norm": {"wte": 2.0, **{f"h.{i}.{m}.weight": 1.0 + i
                                               for i in range(2)
                                               for m in ("attn.c_attn", "attn.c_proj",
                                                         "mlp.c_fc", "mlp.c_proj")}}}
    assert (top.read(record), bottom.read(record)) == (2.0, 1.0)
    record["spectral_norm"]["wte"] = math.nan
    assert math.isnan(top.read(record)) and math.isnan(bottom.read(record))


def _store(records_by_run, extent):
    store = RunStore(tuple(records_by_run), extent, {"entropy_floor": 0.25, "ln_vocab": 4.16,
                                                     "lr_max": 0.025})
    for run, records in records_by_run.items():
        for record in records:
            store.add(run, record)
    return store


def _record(step, loss, val=None):
    return {"step": step, "train_loss": loss, "val_loss": val}


def test_a_frame_shares_one_scale_with_the_reference_and_finds_the_first_nan():
    store = _store({"reference": [_record(0, 4.0, 4.1), _record(1, 3.0), _record(2, 2.0)],
                    "01": [_record(0, 200.0, 210.0), _record(1, math.nan), _record(2, 9.0)]},
                   extent=5)
    view = View(run="01", overlay=True)
    frame = panel_frame(PANELS["loss"], store, view, "en")
    train, val = frame.lines
    assert train.values[0] == 200.0 and train.values[2] == 9.0
    assert math.isnan(train.values[1]) and train.values[3:] == [None, None]
    assert val.values == [210.0, 210.0, 210.0, None, None]  # held, not into the future
    assert train.reference == [4.0, 3.0, 2.0, None, None]
    low, high = frame.value_range
    assert low <= 0.25 and high >= 210.0  # the floor guide and both runs on one axis
    assert frame.nonfinite_step == 1
    assert (train.summary.last, train.summary.low, train.summary.high) == (9.0, 9.0, 200.0)


def test_a_redeal_restarts_a_run_in_the_store():
    store = _store({"reference": [_record(0, 4.0), _record(1, 3.0)]}, extent=3)
    series = PANELS["loss"].series[0]
    assert store.values("reference", series) == [4.0, 3.0]
    store.add("reference", _record(0, 5.0))
    assert store.values("reference", series) == [5.0]
    assert store.count("reference") == 1


def test_short_labels_of_any_matrix_and_summary_fit_a_compact_row():
    """A model's own names (BERT's `encoder.layer.3...`, a summary of a layer named so) are
    read by what a series is, never by words in its key."""
    from diagnose.runs.watch import matrix_series
    from diagnose.views.panels import per_layer

    names = ["encoder.layer.3.attention.self.query.weight", "encoder.layer.3.output.weight",
             "encoder.layer.3.intermediate.weight", "encoder.layer.3.attention.output.weight",
             "x.envelope.mx", "wte"]
    panel = dataclasses.replace(PANELS["spectral"], series=matrix_series(names))
    labels = [short_label(s, lang) for s in (*panel.series, *per_layer(panel), *envelope(panel))
              for lang in ("en", "es")]
    assert max(map(len, labels)) <= 6
    assert [short_label(s, "en") for s in per_layer(panel)] == [
        "3 max", "3 med", "3 min", "mx", "wte"]


def test_the_games_nine_matrices_summarise_per_layer_between_the_envelope_and_all():
    spectral = PANELS["spectral"]
    per_layer = [short_label(s, "es") for s in shown_series(spectral, rows=7, overlay=False)]
    assert per_layer == ["wte", "0 máx", "0 med", "0 mín", "1 máx", "1 med", "1 mín"]
    assert len(shown_series(spectral, rows=13, overlay=True)) == 2  # 7 × 2 > 13: the envelope
