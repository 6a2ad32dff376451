"""A run's `dashboard.html`: the six panels as one self-contained page (architecture §4, §7).

    html = render_dashboard(header, records, reference=ref_records, lang="es", code="7KQ2-M9XF")
    atomic_write(workspace.dashboard_path("01"), html)  # scenarios.files: whole or not at all

The page is inline SVG: two charts per panel, the whole run and a zoom on its first eighth,
drawn by `plot.panel_svg` from the shared specs in `diagnose.views.panels`; a legend per panel that
doubles as a readout; checkboxes that hide the reference run's faint curves and swap in the
zoomed charts; and a small inline script (`dashboard.js`) that moves a step cursor across every
panel on hover. Without the script the page still shows everything but the readout. The
stylesheet and the script ship beside this module and are inlined: the page loads nothing,
links nothing and opens offline.

Left out on purpose: anything that tells runs apart besides their data. The pages of 01, 02 and
03 are built by the same code path with the same words, ids and classes in the same order; the
scenario's breaks are never consulted here. `one_size` pads a scenario's pages to one size
without a line or a byte outside their data.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from typing import Any

from diagnose.views.dashboard.plot import LEFT, RIGHT, WIDTH, Chart, RunData, panel_svg
from diagnose.views.panels import Panel, Series, format_number, guide_values, panels_for, summarize
from scenarios.langs import LANGS
from scenarios.numbers import SYMBOLS
from scenarios.words import say, say_n

__all__ = ["one_size", "render_dashboard"]

Record = dict[str, Any]
DATA_OPEN = '<script type="application/json" id="dashboard-data">'

def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _json_value(value: float | None) -> float | str | None:
    """4 significant digits keep the page small; the hover readout shows no more."""
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    rounded = float(f"{value:.4g}")
    return rounded if math.isfinite(rounded) else value  # 1.7977e308 would round to inf


def _reference_records(reference: Any) -> list[Record] | None:
    """Accept the reference as its records or as the (header, records) pair read_metrics gives."""
    if reference is None:
        return None
    if (isinstance(reference, tuple) and len(reference) == 2
            and isinstance(reference[0], dict)):
        return list(reference[1])
    return list(reference)


def _legend(panel: Panel, lang: str, run: list[list[float | None]],
            ref: list[list[float | None]] | None) -> str:
    items = []
    for i, (series, values) in enumerate(zip(panel.series, run, strict=True)):
        last = series.format(summarize(values).last, lang)
        ref_last = (say(lang, "ref") + " " + series.format(summarize(ref[i]).last, lang)
                    if ref else "")
        items.append(
            f'<li><svg class="swatch" viewBox="0 0 24 8"><line class="line g{series.group} '
            f'v{series.variant}" x1="0" y1="4" x2="24" y2="4"/></svg>'
            f"<span>{escape(series.label_in(lang))}</span> "
            f'<b class="val" data-i="{i}">{escape(last)}</b>'
            + (f' <i class="refval" data-i="{i}">{escape(ref_last)}</i>' if ref else "")
            + "</li>")
    return f'<ul class="legend">{"".join(items)}</ul>'


def _nonfinite_note(panel: Panel, lang: str, steps: list[int],
                    run: list[list[float | None]]) -> str:
    starts: dict[int, list[str]] = {}
    for series, values in zip(panel.series, run, strict=True):
        at = summarize(values).nonfinite_at
        if at is not None:
            starts.setdefault(steps[at], []).append(series.label_in(lang))
    lines = [say(lang, "NaN/inf from step {step}: {names}", step=step, names=", ".join(names))
             for step, names in sorted(starts.items())]
    return f'<p class="alarm-note">{"<br>".join(escape(line) for line in lines)}</p>'


def _series_format(series: Series) -> dict[str, Any]:
    return {"total": series.total, "unit": series.unit}


def _panel_section(panel: Panel, lang: str, header: dict[str, Any],
                   runs: tuple[list[Record], list[Record] | None], zoom_last: int
                   ) -> tuple[str, dict[str, Any]]:
    """One panel's section (its two charts, legend and NaN note) and its data for the script.
    `runs`: the run's records and the reference's (None on the reference's own page)."""
    records, ref_records = runs
    steps = [r["step"] for r in records]
    run = [s.values(records) for s in panel.series]
    ref = [s.values(ref_records) for s in panel.series] if ref_records is not None else None
    chart = Chart(RunData(steps, run),
                  RunData([r["step"] for r in ref_records], ref) if ref else None)
    guides = guide_values(panel, header)
    svg = "".join(panel_svg(panel, lang, chart.upto(upto), guides, say(lang, "step"), view)
                  for view, upto in (("whole", None), ("zoom", zoom_last)))
    section = (f'<section class="panel" id="panel-{panel.number}">'
               f"<h2>{escape(panel.title_in(lang))}"
               f'<span class="scale">{"log" if panel.log else "lin"}</span></h2>'
               f"{svg}{_legend(panel, lang, run, ref)}{_nonfinite_note(panel, lang, steps, run)}"
               f"</section>")
    data = {"series": [_series_format(s) for s in panel.series],
            "run": [[_json_value(v) for v in vals] for vals in run],
            "ref": [[_json_value(v) for v in vals] for vals in ref] if ref else None}
    return section, data


def _meta(header: dict[str, Any], records: int, lang: str) -> str:
    """The line under the heading: steps, parameters, evaluation interval, lr_max, floor."""
    steps, every = header.get("steps", records), header.get("eval_every")
    meta = [say_n(lang, "{n} step", "{n} steps", steps, n=steps),
            say(lang, "{n:,} parameters", n=header.get("params", 0)),
            (say_n(lang, "eval every {n} step", "eval every {n} steps", every, n=every)
             if isinstance(every, int) else say(lang, "eval every {n} steps", n="?")),
            f"lr_max {format_number(header['lr_max'], lang) if 'lr_max' in header else '?'}",
            say(lang, "entropy floor {floor:.3f} nats", floor=header.get("entropy_floor", 0))]
    return " · ".join(meta)


def _toggles(lang: str, with_reference: bool, zoom_last: int) -> str:
    show_reference = escape(say(lang, "show the reference run (faint curves)"))
    zoom = escape(say(lang, "zoom into steps 0–{last}", last=zoom_last))
    toggles = (f'<label class="toggle"><input type="checkbox" id="show-reference" checked> '
               f"{show_reference}</label>" if with_reference else "")
    return toggles + (f'<label class="toggle"><input type="checkbox" id="zoom-first"> '
                      f"{zoom}</label>")


def render_dashboard(header: dict[str, Any], records: Sequence[Record], *,
                     reference: Any = None, lang: str = "en", code: str | None = None,
                     appendix: str = "") -> str:
    """The dashboard page of one run as an HTML string.

    `header`, `records`: as `diagnose.metrics.read_metrics` returns them. `reference`: the
    reference run's records (or its (header, records) pair), drawn faintly beneath; None for
    the reference's own page. `code`: the scenario code shown under the title. `lang`: "en" or
    "es". `appendix`: HTML placed after the panels (the what-if, once the run is revealed).
    """
    from diagnose import __version__

    if lang not in LANGS:
        raise ValueError(f"lang: expected one of {', '.join(LANGS)}, got {lang!r}")
    records = list(records)
    ref_records = _reference_records(reference)
    steps = [r["step"] for r in records]
    ref_steps = [r["step"] for r in ref_records] if ref_records is not None else []
    run_id = str(header.get("run", ""))
    heading = (say(lang, "Reference run") if run_id == "reference"
               else say(lang, "Run {run}", run=run_id))

    # The zoomed charts show the first eighth of the run (at least 10 steps), where a
    # schedule or an init shows itself and the whole-run charts give it a few pixels.
    last_step = max([*steps[-1:], *ref_steps[-1:]], default=0)
    zoom_last = min(last_step, max(10, last_step // 8))
    sections, data = [], []
    for panel in panels_for(records or ref_records or []):
        section, panel_data = _panel_section(panel, lang, header, (records, ref_records),
                                             zoom_last)
        sections.append(section)
        data.append(panel_data)
    payload = {"first": steps[0] if steps else 0, "refFirst": ref_steps[0] if ref_steps else 0,
               "left": LEFT, "right": RIGHT, "width": WIDTH,
               "step": say(lang, "step"), "reference": say(lang, "ref"), "panels": data,
               "symbols": SYMBOLS[lang]}  # the hover readout writes numbers as the page does
    scenario_code = escape(say(lang, "scenario {code}", code=code)) if code else ""
    hint = escape(say(lang, "Legends show the last step. Hover a chart to read every panel at "
                            "one step."))
    foot = escape(say(lang, "Written by diagnose {version}. Opens offline; nothing is loaded.",
                      version=__version__))
    # `<` never occurs in the numbers, so the JSON cannot close its script element early.
    payload_json = json.dumps(payload, separators=(",", ":"), allow_nan=False)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        # No initial-scale in the viewport (browsers default to it): those letters hold a
        # break word, and a student searching the page source must find none.
        '<meta name="viewport" content="width=device-width">\n'
        f"<title>{escape(heading)} · diagnose</title>\n<style>{_asset('dashboard.css')}</style>\n"
        f"</head>\n<body>\n<header>\n<h1>{escape(heading)}</h1>\n"
        + (f'<p class="code">{scenario_code}</p>\n' if code else "")
        + f'<p class="meta">{escape(_meta(header, len(records), lang))}</p>\n'
        f'<div class="bar">{_toggles(lang, ref_records is not None, zoom_last)}'
        f'<span class="hint">{hint}</span>'
        f'<span class="at" id="cursor-step"></span></div>\n</header>\n'
        f'<main class="panels">\n' + "\n".join(sections) + "\n</main>\n" + appendix +
        f"<footer>{foot}</footer>\n"
        f"{DATA_OPEN}{payload_json}</script>\n"
        f"<script>{_asset('dashboard.js')}</script>\n</body>\n</html>\n")


def one_size(pages: Mapping[str, str]) -> dict[str, bytes]:
    """The pages of one scenario's runs, each padded to the largest's size, as UTF-8 bytes.

    A page's size follows its curves (a NaN run draws shorter paths), so `ls -l` would name a
    break. The padding is spaces at the end of the JSON data, before its `</script>`: JSON
    ignores them, so the pages keep their line count and every byte outside the data (`wc -l`,
    `diff` and `tail` tell nothing either). The what-if pages are not padded: they are written
    after the reveal, when the breaks are known.
    """
    encoded = {run: page.encode("utf-8") for run, page in pages.items()}
    size = max((len(page) for page in encoded.values()), default=0)
    padded = {}
    for run, page in encoded.items():
        end = page.index(b"</script>", page.index(DATA_OPEN.encode("ascii")))
        padded[run] = page[:end] + b" " * (size - len(page)) + page[end:]
    return padded
