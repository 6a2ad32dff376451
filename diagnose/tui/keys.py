"""The view keys, shared by the dashboard and the detail screen so both answer them alike.

Every action lives on the app (`app.*`), which owns the `View` and redraws whichever screen is
showing. Descriptions are English; `text.localised` translates them per screen.
"""

from textual.binding import Binding

RUNS = Binding.Group("runs", compact=True)

VIEW_BINDINGS = [
    Binding("0", "app.show_run(0)", "reference", group=RUNS),
    Binding("1", "app.show_run(1)", "01", group=RUNS),
    Binding("2", "app.show_run(2)", "02", group=RUNS),
    Binding("3", "app.show_run(3)", "03", group=RUNS),
    *(Binding(str(n), f"app.show_run({n})", f"{n:02d}", show=False) for n in range(4, 10)),
    Binding("l", "app.toggle_log", "log"),
    Binding("r", "app.toggle_overlay", "ref"),
    Binding("z", "app.toggle_zoom", "zoom"),
    # The footer has no room for the cursor at 80 columns: the help and the detail view say it.
    Binding("left", "app.move_cursor(-1)", "cursor", show=False),
    Binding("right", "app.move_cursor(1)", "cursor", show=False),
    Binding("shift+left", "app.move_cursor(-10)", "cursor", show=False),
    Binding("shift+right", "app.move_cursor(10)", "cursor", show=False),
    Binding("home", "app.cursor_to('start')", "start", show=False),
    Binding("end", "app.cursor_to('end')", "end", show=False),
]
