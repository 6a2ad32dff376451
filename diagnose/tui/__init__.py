"""The terminal game, `diagnose play`, and `diagnose watch` (Textual): see `app.PlayApp` for how
it fits together.

Three folders and the apps above them, each module readable in one sitting:

- `app` (`PlayApp`: state and actions), `watch_app` (`WatchApp`) and `viewing` (`ViewApp`, the
  view keys both share), with their stylesheet `play.tcss`;
- `screens/`: every screen and modal screen;
- `widgets/`: every widget, one per module;
- `drawing/`: what the widgets draw, free of Textual (`state`, `frames`, `scale`);
- beside the apps, what the app's parts share or the app alone uses, none of it drawing:
  `messages` and `keys` (sent and bound by screens and widgets alike; `keys.Spoken` says a
  screen's key descriptions in the app's language), `drafts` (the student's answers),
  `diagnoses` (writing the diagnoses file from them), `training` (the worker's side) and `text`
  (the help). Every word is English in the code and translated by the catalogs
  (`scenarios.words.say`, `diagnose.phrases.Phrase`).

Nothing here imports numpy at start-up, and nothing shown tells which break a run holds.
"""
