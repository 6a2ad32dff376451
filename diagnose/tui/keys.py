"""The view keys, shared by the dashboard and the detail screen so both answer them alike, and
`Spoken`, which shows every screen's key descriptions in the app's language.

Every action lives on the app (`app.*`), which owns the `View` and redraws whichever screen is
showing. A binding's description is English, marked `N_` where it is written; the footer reads
`Screen.active_bindings`, which a `Spoken` screen returns with each description (and group
label) said in `app.lang` through the catalogs.

`at_once`: a screen whose keys open or close other screens (the dashboard's `d`, a form's
Esc) has every key act inside the app's own handling of it (Textual's priority bindings),
before the next key is read. A key Textual forwards to the focused widget is handled later,
on that widget's queue, so a run of keys read at once (a fast typist, a terminal over SSH)
would be forwarded to the screen that was showing when they were read, not to the one the
keys before them opened.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import ActiveBinding, Binding

from scenarios.words import N_, say

RUNS = Binding.Group(N_("runs"), compact=True)

VIEW_BINDINGS = [
    Binding("0", "app.show_run(0)", N_("reference"), group=RUNS),
    *(Binding(str(n), f"app.show_run({n})", f"{n:02d}", group=RUNS) for n in range(1, 4)),
    *(Binding(str(n), f"app.show_run({n})", f"{n:02d}", show=False) for n in range(4, 10)),
    Binding("l", "app.toggle_log", N_("log")),
    Binding("r", "app.toggle_overlay", N_("ref")),
    Binding("z", "app.toggle_zoom", N_("zoom")),
    # The footer has no room for the cursor at 80 columns: the help and the detail view say it.
    Binding("left", "app.move_cursor(-1)", N_("cursor"), show=False),
    Binding("right", "app.move_cursor(1)", N_("cursor"), show=False),
    Binding("shift+left", "app.move_cursor(-10)", N_("cursor"), show=False),
    Binding("shift+right", "app.move_cursor(10)", N_("cursor"), show=False),
    Binding("home", "app.cursor_to('start')", N_("start"), show=False),
    Binding("end", "app.cursor_to('end')", N_("end"), show=False),
]


# The game's dashboard: every ID a level may hold, shown; the app hides the keys of the IDs its
# scenario has not (PlayApp.check_action): a level's count of runs is its own.
PLAY_RUN_BINDINGS = [
    Binding("0", "app.show_run(0)", N_("reference"), group=RUNS),
    *(Binding(str(n), f"app.show_run({n})", f"{n:02d}", group=RUNS) for n in range(1, 10)),
]


def at_once(bindings: list[Binding]) -> list[Binding]:
    """`bindings`, each acting as its key is read (see the docstring)."""
    return [replace(binding, priority=True) for binding in bindings]


def spoken(binding: Binding, lang: str) -> Binding:
    """`binding` with its description and its group's label in `lang` (a run's ID as is)."""
    group = binding.group
    if group is not None and group.description:
        group = replace(group, description=say(lang, group.description))
    return replace(binding, group=group, description=say(lang, binding.description)
                   if binding.description else "")


class Spoken:
    """A screen mixin (listed before `Screen`): the footer's key descriptions in `app.lang`."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        lang = self.app.lang
        return {key: active._replace(binding=spoken(active.binding, lang))
                for key, active in super().active_bindings.items()}
