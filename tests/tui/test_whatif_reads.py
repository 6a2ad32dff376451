"""What-if reads (issue 32, item 4): zoom and the cursor answer as on the dashboard, no dose's
mark hides another, each break's what-if draws the series its signature lives in first
(declared in its folder, `[whatif] show`), an axis speaks its values' units, a label is said
once."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

import scenarios
from diagnose.game.whatif import (
    DOSE_MARKS,
    Dose,
    WhatIfPlan,
    _overlay,
    axis_text,
    render_whatif,
    view_title,
    whatif_html,
    whatif_views,
)
from diagnose.tui.app import PlayApp
from diagnose.tui.screens.whatif import WhatIfScreen
from diagnose.views.panels import build_panels, fit_axis
from scenarios.langs import LANGS
from tests.tui.conftest import cache_whatif_doses
from tests.tui.screen import open_what_if, until

PANELS = build_panels(2, 8, 512)


def plan_of(slug: str) -> WhatIfPlan:
    brk = scenarios.breaks(None)[slug]
    healthy = scenarios.healthy_config()
    doses = tuple(Dose(value, config, i == 0, False)
                  for i, (value, config) in enumerate(brk.whatif.configs(brk.apply(healthy))))
    return WhatIfPlan("01", brk, doses, 1)


def records(steps: int = 4) -> list[dict]:
    return [{"act_mean_abs": [1.0, 1.0, 1.0]} for _ in range(steps)]


def test_each_break_draws_its_signature_s_series_first_and_every_panel():
    """frozen-block's what-if opens on its frozen block's matrices (it drew only `wte`)."""
    with_whatif = [b for b in scenarios.breaks(None).values() if b.whatif is not None]
    assert with_whatif
    for brk in with_whatif:
        views = whatif_views(plan_of(brk.slug), records())
        keys = [series.key for _, series in views]
        assert keys[:len(brk.whatif.show)] == list(brk.whatif.show), brk.slug
        assert {panel.number for panel, _ in views} == {1, 2, 3, 4, 5, 6}
        shown_panels = {panel.number for panel, series in views if series.key in brk.whatif.show}
        assert shown_panels <= {int(n) for n in brk.signature}, brk.slug  # its signature's
    frozen = [s.key for _, s in whatif_views(plan_of("frozen-block"), records())]
    assert frozen[:2] == ["h.0.attn.c_attn", "h.1.attn.c_attn"]


def test_a_chart_says_its_label_once():
    for panel in PANELS:
        for series in panel.series:
            for lang in LANGS:
                title = view_title(panel, series, lang).casefold()
                words = re.findall(r"\w+", title.split("·", 1)[1])
                assert not any(title.count(f"{a} {b}") > 1 for a, b in zip(words, words[1:],
                                                                         strict=False)), title
    lr = PANELS[1]
    assert view_title(lr, lr.series[0], "en") == "2 · Learning rate"
    assert view_title(PANELS[0], PANELS[0].series[1], "en") == "1 · Loss · validation"


def test_an_axis_speaks_in_its_values_units():
    """Panel 6's heads are drawn as a percentage of 8 but written "1/8": the axis says
    "0/8–2/8", not "0–25"."""
    dead = PANELS[5]
    heads, neurons = dead.series
    axis = fit_axis([0.0, 25.0], False)
    assert axis_text(heads, axis, "en") == "(linear, 0/8–2/8)"
    assert axis_text(neurons, axis, "en") == "(linear, 0%–25%)"
    assert axis_text(neurons, axis, "es") == "(lineal, 0\u00a0%–25\u00a0%)"
    assert heads.format(1.0) == "1/8"


@given(doses=st.integers(2, len(DOSE_MARKS)), width=st.integers(16, 80),
       values=st.lists(st.floats(0.1, 10.0), min_size=2, max_size=60))
def test_doses_that_meet_take_turns_so_every_mark_shows(doses, width, values):
    """The worst case: every dose's curve is the same. Each mark still shows on the chart."""
    series = PANELS[0].series[0]
    axis = fit_axis(values, True)
    looks = [(DOSE_MARKS[i], "") for i in range(doses)]
    chart = "".join(line.plain for line in _overlay(series, [(look, list(values))
                                                            for look in looks], axis, width, 2))
    if min(len(values), width) >= doses:  # room for each to take its turn
        assert all(mark in chart for mark, _ in looks)


def test_the_html_draws_the_dealt_dose_last_and_every_dose_with_its_own_dash():
    plan = plan_of("no-warmup")
    rows = [{"step": i, "train_loss": 4.0, "val_loss": None, "lr": 0.01,
             "grad_norm_preclip": 1.0, "grad_norm_postclip": 1.0, "act_mean_abs": [1, 1, 1],
             "spectral_norm": {"wte": 1.0}, "dead_heads": 0, "dead_neurons_frac": 0.0}
            for i in range(3)]
    html = whatif_html(plan, dict.fromkeys(plan.doses, rows))
    for section in html.split('<section class="panel whatif-panel">')[1:]:
        paths = re.findall(r"<path [^>]*>", section)
        assert len(paths) == len(plan.doses)
        assert 'stroke-width="2.5"' in paths[-1] and "dasharray" not in paths[-1]
        assert len({re.search(r'stroke="([^"]+)"', p).group(1) for p in paths}) == len(paths)


async def test_zoom_and_the_cursor_read_the_what_if_as_the_dashboard(workspace, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    cache_whatif_doses(workspace)
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_what_if(pilot, app, "1")
        await until(pilot, lambda: screen.results is not None)
        steps = screen.workspace.steps
        await pilot.press("end")
        assert screen.cursor == steps - 1
        await until(pilot, lambda: f"step {steps - 1}" in body(screen))
        await pilot.press("z")
        assert screen.zoom and len(screen.window) == min(20, steps)
        assert screen.cursor == len(screen.window) - 1
        await pilot.press("home", "right", "right")
        await until(pilot, lambda: "step 2" in body(screen))
        await pilot.press("escape")  # the cursor goes first
        assert screen.cursor is None and isinstance(app.screen, WhatIfScreen)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, WhatIfScreen))


def body(screen) -> str:
    return str(screen.query_one("#whatif-body").render())


def test_render_reads_the_zoomed_window_and_the_cursor_s_values():
    plan = plan_of("no-warmup")
    rows = [{"step": i, "train_loss": 10.0 - i, "val_loss": None, "lr": 0.001 * i,
             "grad_norm_preclip": 1.0, "grad_norm_postclip": 1.0, "act_mean_abs": [1, 1, 1],
             "spectral_norm": {"wte": 1.0}, "dead_heads": 0, "dead_neurons_frac": 0.0}
            for i in range(40)]
    text = "\n".join(line.plain for line in render_whatif(
        plan, dict.fromkeys(plan.doses, rows), "es", 100, range(20), 3))
    assert "paso 3" in text and "0,003" in text  # the cursor's step and its value, in Spanish
    assert not re.search(r"\d\.\d", text.split("\n", 1)[1].replace("lr_max=", ""))
