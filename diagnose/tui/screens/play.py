"""`PlayScreen`: the game's main screen: the runs as tabs, the six panels, the keys.

```
 reference  01  02  03                                  scenario 7KQ2-M9XF · level 2
━━━━━━━━━━━╸━━╺━━━━━━━━                                 01 · step 212/400 · linear
 (while training: one progress line per run)
 ┌ 1 · Loss · log ─────────────┐┌ 2 · Learning rate · linear ┐
 │train ▁▂▃▅▇█▆▅▃▂▁▁    0.3121 │ ...
 └──────── ┄ entropy floor 0.2514 ┘
 0123 runs  l log  r overlay  z zoom  ←→ cursor  ⏎ detail  d diagnose  ^s save  g grade …
```

The screen only lays out and forwards: the `View`, the store and every action live on the app,
which calls `redraw` after a key and on its timer.
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Tab, Tabs

from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.keys import PLAY_RUN_BINDINGS, VIEW_BINDINGS, Spoken, at_once
from diagnose.tui.messages import PanelChosen
from diagnose.tui.viewing import view_notes
from diagnose.tui.widgets.dashboard import Dashboard
from diagnose.tui.widgets.footer import KeyFooter
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.training_bars import TrainingBars
from diagnose.views.panels import Panel
from diagnose.workspace import REFERENCE
from scenarios.words import N_, say


def shown_when(key: str, action: str, description: str) -> list[Binding]:
    """`key` acting as the app's `action` always, shown in the footer only while it acts now
    (`PlayApp.key_shown`: `w` after the reveal, `n` once the level is passed, `g` before the
    reveal...): the first binding shows, the second acts when the first is hidden."""
    return [Binding(key, f"shown('{action}')", description),
            Binding(key, f"app.{action}", description, show=False)]


class PlayScreen(Spoken, Screen[None]):
    BINDINGS = at_once([  # keys.at_once: `d` opens the form before the next key is read
        *PLAY_RUN_BINDINGS,
        *(b for b in VIEW_BINDINGS if not b.action.startswith("app.show_run")),
        Binding("escape", "app.cursor_to('none')", N_("clear cursor"), show=False),
        # Tab moves to the next panel (its title gets a ▶), Enter opens it.
        *shown_when("tab", "focus_next", N_("panel")),
        Binding("shift+tab", "app.focus_previous", N_("panel"), show=False),
        Binding("enter", "detail", N_("open"), key_display="⏎"),
        *shown_when("d", "diagnose", N_("diagnose")),
        Binding("ctrl+s", "app.save", N_("save"), show=False),  # in the help and the form
        *shown_when("g", "grade", N_("grade")),
        *shown_when("v", "reveal", N_("reveal")),
        *shown_when("w", "what_if", N_("what-if")),
        *shown_when("n", "next_level", N_("next level")),
        *shown_when("p", "show_progress", N_("progress")),
        *shown_when("u", "change_name", N_("name")),
        Binding("question_mark", "app.help", N_("help")),
        Binding("q", "app.quit", N_("quit")),
    ])

    def __init__(self, store: RunStore, view: View, panels: tuple[Panel, ...],
                 lang: str) -> None:
        super().__init__()
        self.store, self.view, self.panels, self.lang = store, view, panels, lang
        self.scenario = ""  # the status line's first words, set by the app
        self.tabs = Tabs(*(Tab(self._tab_label(run), id=f"tab-{run}") for run in store.runs),
                         id="runs")
        self.status = Readout(id="status")
        self.progress = TrainingBars(lang, len(store.runs), id="progress")
        self.dashboard = Dashboard(panels, lang)

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield self.tabs
            yield self.status
        yield self.progress
        yield self.dashboard
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.tabs.can_focus = False  # ←/→ move the step cursor, not the tabs
        self.dashboard.boxes[0].focus()
        self.app.redraw()  # type: ignore[attr-defined]

    def _tab_label(self, run: str) -> str:
        return say(self.lang, "reference") if run == REFERENCE else run

    def select(self, run: str) -> None:
        """Show `run`'s tab as active (the app has already switched the view)."""
        self.tabs.active = f"tab-{run}"

    def redraw(self, training: bool) -> None:
        self.dashboard.show(self.store, self.view)
        self.progress.display = training
        if training:
            self.progress.show(self.store)
        self.status.show(self._status())

    def _status(self) -> str:
        """Two lines: the scenario (and level), then the run shown, named in bold (its tab's
        colour alone is lost without colour), its steps so far, and the view's notes."""
        run = self.view.run
        steps = (say(self.lang, "step {step}/{steps}", step=self.store.count(run),
                     steps=self.store.extent) if self.view.cursor is None else "")
        parts = [f"[bold]{escape(self._tab_label(run))}[/]", steps,
                 *view_notes(self.view, self.lang)]
        return self.scenario + "\n" + " · ".join(p for p in parts if p)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        run = (event.tab.id or "").removeprefix("tab-")
        if run and run != self.view.run:
            self.app.select_run(run)  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "shown":
            return self.app.key_shown(str(parameters[0]))  # type: ignore[attr-defined]
        return True

    async def action_shown(self, action: str) -> None:
        await self.app.run_action(f"app.{action}")

    def on_resize(self) -> None:
        self.refresh_bindings()  # the footer's room decides which keys it names

    def action_detail(self) -> None:
        focused = self.focused
        box = focused if isinstance(focused, PanelBox) else self.dashboard.boxes[0]
        self.post_message(PanelChosen(box.panel.number))
