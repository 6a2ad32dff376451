"""The import paths of diagnose's modules before they moved into feature packages (issue 36).

`import diagnose.scenario` (or `from diagnose import signatures`, as a course deck's
`signature.py` of an earlier release does) still works for one release: it gives the module at
its new path, the same object, and warns (DeprecationWarning) naming the new path. The table
below is the whole list; `diagnose/__init__.py` installs the finder. The next release deletes
this file.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED = {
    "diagnose.scenario": "diagnose.game.scenario",
    "diagnose.progress": "diagnose.game.progress",
    "diagnose.levels": "diagnose.game.progress",
    "diagnose.self_study": "diagnose.game.self_study",
    "diagnose.review": "diagnose.game.review",
    "diagnose.routes": "diagnose.game.routes",
    "diagnose.whatif": "diagnose.game.whatif",
    "diagnose.cluster": "diagnose.classroom.cluster",
    "diagnose.instructor_grading": "diagnose.classroom.grading",
    "diagnose.gradescope": "diagnose.classroom.gradescope",
    "diagnose.handout": "diagnose.classroom.handout",
    "diagnose.answers": "diagnose.classroom.answers",
    "diagnose.class_report": "diagnose.classroom.report",
    "diagnose.wheel": "diagnose.classroom.wheel",
    "diagnose.check": "diagnose.runs.check",
    "diagnose.bands": "diagnose.runs.bands",
    "diagnose.watch": "diagnose.runs.watch",
    "diagnose.record": "diagnose.runs.record",
    "diagnose.torch_hooks": "diagnose.runs.torch_hooks",
    "diagnose.show": "diagnose.runs.show",
    "diagnose.panels": "diagnose.views.panels",
    "diagnose.columns": "diagnose.views.columns",
    "diagnose.ticks": "diagnose.views.ticks",
    "diagnose.run_bars": "diagnose.views.run_bars",
    "diagnose.dashboard": "diagnose.views.dashboard",
    "diagnose.dashboard.plot": "diagnose.views.dashboard.plot",
    "diagnose.diagnostician": "diagnose.diagnosis.diagnostician",
    "diagnose.signatures": "diagnose.diagnosis.signatures",
    "diagnose.figures": "diagnose.diagnosis.figures",
    "diagnose.fidelity": "diagnose.diagnosis.fidelity",
    "diagnose.reveal": "diagnose.diagnosis.reveal",
    "diagnose.params": "diagnose.cli.params",
}
# `diagnose.classroom` was a module and is now the class's package: its face
# (`diagnose/classroom/__init__.py`) names what the module did.


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of MOVED and loads it as the module at its new path."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(said(spec.name), DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        self._real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the old spec on the module: give it back its own
        module.__spec__ = self._real_spec


def said(old: str) -> str:
    """The warning an import of the old path `old` raises."""
    return (f"{old} is now {MOVED[old]}; import that instead (the old name goes in the next "
            "release)")


def is_old_path(warned: warnings.WarningMessage) -> bool:
    """Whether a recorded warning is this module's, for an old path (a course deck's loader
    says those in its own words and leaves any other warning as raised)."""
    return (issubclass(warned.category, DeprecationWarning)
            and any(str(warned.message) == said(old) for old in MOVED))


def install() -> None:
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, OldPaths())  # before the path finder: one module per file
