"""The student's drafts: each run's chosen break and evidence, never lost.

Kept in `<workspace>/.drafts.json`, rewritten on every change (each keystroke in the form) by
writing a temporary file and renaming it over the old one, so a terminal killed at any moment
leaves either the previous draft or the new one, never half of one. Reopening the workspace
restores them. No fsync: a killed process loses nothing that reached the OS, and a keystroke
should not wait on the disk.

While a fresh scenario is still training there is no workspace yet (and `create_scenario`
refuses a folder that holds other files), so drafts live in memory until `attach` gives them
their file. A corrupt drafts file is moved aside (`.drafts.json.corrupt`), never overwritten
silently. stdlib only, and the grader's "not sure" (grading.diagnoses.UNSURE). Not here: the
player's name, kept once for every level in the data folder (`diagnose.home`); a `name` in
an older drafts file is ignored.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.phrases import Phrase
from grading.diagnoses import UNSURE  # the form's "not sure": a section without a diagnosis
from scenarios.errors import UserError
from scenarios.files import atomic_write, loads_json, read_small_text

DRAFTS_FILE = ".drafts.json"
SCHEMA = "diagnose.drafts/1"
MAX_BYTES = 4 * 1024 * 1024  # three runs' evidence, typed by hand


@dataclass(frozen=True)
class Draft:
    """One run's draft in the form: the break chosen so far and the evidence typed."""

    choice: str | None = None  # a break's slug, UNSURE, or None: nothing chosen yet
    evidence: str = ""

    @property
    def empty(self) -> bool:
        return self.choice is None and not self.evidence.strip()


def _draft(answer: Any) -> Draft:
    """A drafts file's answer, each field of the kind the form holds (a `choice` that is a
    list once crashed `play` on Ctrl+S); TypeError for any other."""
    choice, evidence = answer.get("choice"), answer.get("evidence", "")
    if not (choice is None or isinstance(choice, str) and len(choice) <= 64) or not isinstance(
            evidence, str):
        raise TypeError("a draft's choice is a break's name or null, its evidence text")
    return Draft(choice=choice, evidence=evidence)


class Drafts:
    """The answers by run ID; every change is written at once (once attached)."""

    def __init__(self, path: Path | None = None,
                 answers: dict[str, Draft] | None = None) -> None:
        self.path = path
        self.answers: dict[str, Draft] = dict(answers or {})
        self.warning: Phrase | None = None  # set when a corrupt file was moved aside

    @classmethod
    def load(cls, workspace: Path) -> Drafts:
        path = Path(workspace) / DRAFTS_FILE
        if not path.exists() and not path.is_symlink():
            return cls(path)
        try:
            data = loads_json(read_small_text(path, "a drafts file", MAX_BYTES))
        except (UserError, ValueError):
            return cls._corrupt(path)
        try:
            answers = {rid: _draft(a) for rid, a in data["answers"].items()}
            if data.get("schema") != SCHEMA or not all(isinstance(r, str) for r in answers):
                raise ValueError
        except (AttributeError, KeyError, TypeError, ValueError):
            return cls._corrupt(path)
        return cls(path, answers)

    @classmethod
    def _corrupt(cls, path: Path) -> Drafts:
        aside = path.with_name(path.name + ".corrupt")
        os.replace(path, aside)
        drafts = cls(path)
        drafts.warning = Phrase("{path}: unreadable drafts, moved to {aside}; starting afresh",
                                path=path, aside=aside.name)
        return drafts

    def attach(self, workspace: Path) -> None:
        """Give in-memory drafts their file (the scenario now exists) and write them."""
        self.path = Path(workspace) / DRAFTS_FILE
        self.save()

    def answer(self, run: str) -> Draft:
        return self.answers.get(run, Draft())

    def set_answer(self, run: str, choice: str | None, evidence: str) -> None:
        self.answers[run] = Draft(choice, evidence)
        self.save()

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA,
                "answers": {rid: {"choice": a.choice, "evidence": a.evidence}
                            for rid, a in sorted(self.answers.items())}}

    def save(self) -> None:
        if self.path is None:
            return
        atomic_write(self.path, json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n",
                     error=OSError, sync=False)  # no fsync per keystroke: see the docstring

    def for_grader(self, ids: tuple[str, ...]) -> dict[str, tuple[str | None, str]]:
        """Every ID's (slug or None for "not sure"/nothing, evidence), as the grader takes it."""
        return {rid: (None if self.answer(rid).choice in (None, UNSURE) else
                      self.answer(rid).choice, self.answer(rid).evidence) for rid in ids}
