"""The app's screens, one module each: `play` (the runs as tabs and the six panels), `detail`
(one panel in full), and the modals `form`, `name`, `confirm`, `grade`, `whatif`, `progress`,
`help`.

A screen arranges widgets (`diagnose.tui.widgets`) and sends the app messages; the state and
the actions stay on the app (`diagnose.tui.app`).
"""
