"""The app's widgets, one `Widget` subclass per module: `dashboard` (the grid of panels),
`panel`, `series_row`, `series_plot`, `sparkline`, `axes`, `readout`, `choice_button`,
`training_bars` (one bar per run while a scenario trains) and `footer` (the keys).

Each draws what `diagnose.tui.drawing` computes; none holds the app's state.
"""
