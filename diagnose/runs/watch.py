"""`diagnose watch`'s reading side: a metrics file that is still growing, and the six panels for
a run the game did not train. No Textual (the app is `diagnose/tui/watch_app.py`).

`MetricsTail` reads only the bytes added since its last poll, hands each complete line to the
same parser `read_metrics` uses, and keeps a partial last line (a step the recorder is writing)
for the next poll. It refuses what every reader refuses: a file that is not a regular file, or
one past `metrics.MAX_BYTES`.

`own_panels` adapts the game's panels (`diagnose.views.panels`) to a run of any model: a panel whose
field the run did not record says so in its title; Panel 5 has a series per matrix the run
names, which every view summarises per layer (largest, median, smallest) or as their largest
and smallest when there are more than it has rows for; Panel 3 draws no clip threshold
(a run's is its own, not the game's); the dead-heads row is a count unless the header gives
`heads_total`. The entropy floor is drawn only when the header has one.
"""

from __future__ import annotations

import dataclasses
import stat
from pathlib import Path
from typing import Any

from diagnose.metrics import MAX_BYTES, Header, MetricsError, MetricsParser, StepRecord, recorded
from diagnose.phrases import Phrase
from diagnose.views.panels import Panel, Series, build_panels, matrix_layer
from scenarios.langs import LANGS

PANEL_FIELDS = {1: ("train_loss", "val_loss"), 2: ("lr",),
                3: ("grad_norm_preclip", "grad_norm_postclip"), 4: ("act_mean_abs",),
                5: ("spectral_norm",), 6: ("dead_heads", "dead_neurons_frac")}
CHUNK = 1 << 20


class MetricsTail:
    """A metrics file read as it grows: `poll()` returns the step records added since."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.parser = MetricsParser(self.path)
        self._offset = 0
        self._partial = b""
        self._line = 0

    @property
    def header(self) -> Header | None:
        return self.parser.header

    def poll(self) -> list[StepRecord]:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            raise MetricsError(f"{self.path}: missing metrics file") from None
        except OSError as err:
            raise MetricsError(f"{self.path}: cannot be read ({err.strerror})") from None
        if not stat.S_ISREG(info.st_mode):
            raise MetricsError(f"{self.path}: not a metrics file (not a regular file)")
        if info.st_size > MAX_BYTES:
            raise MetricsError(f"{self.path}: larger than {MAX_BYTES >> 20} MB: not a metrics "
                               "file")
        if info.st_size < self._offset:
            raise MetricsError(f"{self.path}: shrank while watched (another run replaced it)")
        if info.st_size == self._offset:
            return []
        with open(self.path, "rb") as stream:
            stream.seek(self._offset)
            data = stream.read(min(info.st_size - self._offset, MAX_BYTES))
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        before = len(self.parser.records)
        for raw in lines:
            self._line += 1
            try:
                text = raw.decode("utf-8-sig" if self._line == 1 else "utf-8")
            except UnicodeDecodeError:
                raise MetricsError(f"{self.path}:{self._line}: not UTF-8 text") from None
            self.parser.feed(self._line, text)
        return self.parser.records[before:]


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` characters, its middle replaced by "…" (a path keeps its
    start and its file name)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1) // 2 + (width - 1) % 2
    head = width - 1 - tail
    return text[:head] + "…" + text[len(text) - tail:]


def fit_status(name: str, parts: list[str], width: int) -> str:
    """The watch's status line for `width` columns: `parts` joined by " · ", the first holding
    `{name}` (the run's path) and the step count. The path is shortened in its middle (to 16
    characters at least) until the line fits; what still does not fit is the later parts'
    end, which the status widget cuts with an ellipsis: the path and the step count stay."""
    joined = " · ".join(parts)
    room = width - (len(joined) - len("{name}"))
    shown = name if len(name) <= room else shorten_middle(name, max(room, 16))
    return joined.replace("{name}", shown)


def matrix_series(names: list[str]) -> tuple[Series, ...]:
    """Panel 5's series for a run's matrices, one per name as recorded: a colour per layer
    (`panels.matrix_layer`), a line style per matrix within it. The views summarise them per
    layer where they do not fit (`panels.series_for_rows`)."""
    layers: dict[str | None, int] = {}
    out = []
    for name in names:
        layer = matrix_layer(name)
        position = layers.setdefault(layer, 0)
        layers[layer] += 1
        out.append(Series(name, dict.fromkeys(LANGS, name), _matrix(name),
                          group=list(layers).index(layer), variant=position))
    return tuple(out)


def _matrix(name: str) -> Any:
    return lambda record: (record["spectral_norm"] or {}).get(name)


NOTHING = Series("n.a", Phrase("not recorded"), lambda record: None)
DEAD_FIELDS = {"dead_heads": "dead_heads", "dead_neurons": "dead_neurons_frac"}


UNCOUNTED = {"dead_heads": Phrase("attention heads"), "dead_neurons": Phrase("MLP neurons")}


def _without_total(series: Series, total: int | None) -> Series:
    """A dead-units row whose total the header does not give: no "(of N)" in its label."""
    if total:
        return series
    return dataclasses.replace(series, total=None, label=UNCOUNTED[series.key])


def own_panels(header: dict[str, Any], first: dict[str, Any] | None) -> tuple[Panel, ...]:
    """The six panels for a run with this header, shaped by its first record."""
    acts = first["act_mean_abs"] if first else None
    layers = len(acts) - 1 if acts else 1
    heads, neurons = header.get("heads_total"), header.get("neurons_total")
    game = build_panels(layers, heads or 0, neurons or 0)
    panels = []
    for panel in game:
        missing = [k for k in PANEL_FIELDS[panel.number] if not recorded(header, k)]
        changes: dict[str, Any] = {}
        if panel.number == 3:
            changes["guides"] = ()
        if panel.number == 4 and not acts:
            changes["series"] = ()
        if panel.number == 5:
            norms = first.get("spectral_norm") if first else None
            changes["series"] = matrix_series(list(norms or ()))
        if panel.number == 6:
            changes["series"] = tuple(
                _without_total(s, heads if s.key == "dead_heads" else neurons)
                for s in panel.series if recorded(header, DEAD_FIELDS[s.key]))
        if panel.number in (1, 3):
            changes["series"] = tuple(s for s in panel.series if recorded(header, s.key))
        if not changes.get("series", panel.series):
            changes["series"] = (NOTHING,)  # a row that says "–", under the title that says why
        if missing:
            words = ", ".join(missing) if len(missing) < len(PANEL_FIELDS[panel.number]) else ""
            changes["title"] = (Phrase("{title} · not recorded: {fields}", title=panel.title,
                                       fields=words) if words else
                                Phrase("{title} · not recorded", title=panel.title))
        panels.append(dataclasses.replace(panel, **changes))
    return tuple(panels)
