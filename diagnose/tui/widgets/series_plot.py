"""`SeriesPlot`: one series in the detail view: a heading with its full name and numbers, then
its sparkline with a value axis, and the reference's under it when overlaid.

Draws a `frames.DrawnSeries` of a frame computed without a row limit, so every series of the panel
gets its own plot (all nine spectral norms, where the dashboard may show their envelope) up to
`frames.DETAIL_ROWS`; past that (a 12-layer model's matrices) the per-layer summary, each
heading naming the matrix a summary shows at the cursor or the last step.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from diagnose.tui.drawing.frames import DrawnSeries, PanelFrame
from diagnose.tui.widgets.axes import ScaledSparkline
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.series_row import group_class, value_text
from diagnose.views.columns import nonfinite_mark
from scenarios.words import say


class SeriesPlot(Vertical):
    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        # Kept, not queried, and changed only when they change: a key redraws every plot, and
        # DOM queries and class changes (a restyle of the plot) would dominate it.
        self.heading = Readout(classes="heading")
        self.plots = {kind: ScaledSparkline(classes=f"plot {kind}") for kind in ("run", "ref")}

    def compose(self) -> ComposeResult:
        yield self.heading
        yield from self.plots.values()

    def show(self, line: DrawnSeries, frame: PanelFrame) -> None:
        if not self.has_class(group_class(line.series.group)):
            self.set_classes(group_class(line.series.group))  # its only class: one restyle
        self.heading.show(self._heading(line, frame))
        overlaid = line.reference is not None
        if self.plots["ref"].display != overlaid:
            self.plots["ref"].display = overlaid
        for kind, values in (("run", line.values), ("ref", line.reference)):
            if values is None:
                continue
            self.plots[kind].plot(values, log=frame.log, value_range=frame.value_range,
                                  cursor=frame.cursor, guides=[value for _, value in frame.guides])

    def _heading(self, line: DrawnSeries, frame: PanelFrame) -> Text:
        s = line.summary
        words = [Text(line.series.label[self.lang], style="bold")]
        if line.shows is not None:  # a summary: which matrix it is at that step
            words.append(Text(f"= {line.shows}", style="bold"))
        if frame.cursor is not None:
            words += [Text(say(self.lang, "at step") + f" {frame.steps.start + frame.cursor}"),
                      value_text(line, line.at_cursor, "reverse")]
        words += [Text(say(self.lang, "last")), value_text(line, s.last),
                  Text(say(self.lang, "min")), value_text(line, s.low),
                  Text(say(self.lang, "max")), value_text(line, s.high)]
        if s.nonfinite_at is not None:
            bad = line.values[s.nonfinite_at]
            mark = nonfinite_mark(bad) if bad is not None else ""
            words.append(Text(say(self.lang, "{mark} from step {step}", mark=mark,
                                  step=frame.steps.start + s.nonfinite_at), style="bold red"))
        if line.reference_summary is not None:  # the reference's value beside the run's
            value = (line.reference_at_cursor if frame.cursor is not None
                     else line.reference_summary.last)
            words += [Text("· " + say(self.lang, "ref"), style="dim"),
                      value_text(line, value, "dim")]
        if line.reference is not None:
            words.append(Text("(" + say(self.lang, "the reference below, same scale") + ")",
                              style="dim"))
        return Text(" ").join(words)
