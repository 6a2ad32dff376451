"""The terminal game, `diagnose play` (Textual): see `app.PlayApp` for how it fits together.

Modules, one per widget or screen, each readable in one sitting: `app` (state and actions),
`play_screen`, `detail_screen` and the modal `form_screen`, `name_screen`, `help_screen`,
`grade_screen`; the widgets `dashboard`, `panel`, `series_row`, `series_plot`, `sparkline`,
`axes`, `progress`, `readout`; and plain modules without Textual: `state` (the records and the
view), `frames` (what a panel draws), `scale` (values to cells), `training` (the worker's
side), `drafts`, `diagnoses` (the file), `text` (every word, in English and Spanish), plus
`keys` and `messages`. Styles: `play.tcss`.

Nothing here imports numpy at start-up, and nothing shown tells which break a run holds.
"""
