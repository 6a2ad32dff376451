"""The review before grading: every ID with the answer it will be graded on and the first line
of its evidence, an answer that scores 0 (none, or "not sure") marked.

One summary, two faces: the app's review screen (`g`, from the drafts) and `diagnose grade
FILE` (from the file as the grader reads it) print the same lines. No Textual, no grading:
the callers read the answers; this module only words them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scenarios.words import say

EVIDENCE_WIDTH = 48  # of the evidence's first line, so that a row fits 80 columns


@dataclass(frozen=True)
class ReviewRow:
    run: str
    answer: str          # the break's title, "not sure", or "no answer"
    evidence: str        # its first line, cut to EVIDENCE_WIDTH
    scores_zero: bool    # no break named: this ID scores 0


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= EVIDENCE_WIDTH else line[:EVIDENCE_WIDTH - 1] + "…"


def _row(run: str, slug: str | None, unsure: bool, evidence: str, level: int,
         lang: str) -> ReviewRow:
    import scenarios

    titles = {s: b.title[lang] for s, b in scenarios.breaks(level).items()}
    if slug is not None and slug in titles:
        return ReviewRow(run, titles[slug], _first_line(evidence), False)
    answer = say(lang, "not sure") if unsure else say(lang, "no answer")
    return ReviewRow(run, answer, _first_line(evidence), True)


def rows_from_drafts(ids: tuple[str, ...], drafts: Any, level: int,
                     lang: str) -> list[ReviewRow]:
    """The app's drafts (`diagnose.tui.drafts.Drafts`), one row per ID."""
    from grading.diagnoses import UNSURE

    rows = []
    for run in ids:
        draft = drafts.answer(run)
        slug = None if draft.choice in (None, UNSURE) else draft.choice
        rows.append(_row(run, slug, draft.choice == UNSURE, draft.evidence, level, lang))
    return rows


def rows_from_reading(ids: tuple[str, ...], reading: Any, level: int,
                      lang: str) -> list[ReviewRow]:
    """A diagnoses file as the grader reads it (`grading.Reading`), one row per ID."""
    from grading.diagnoses import NAMED, UNSURE

    rows = []
    for run in ids:
        answer = reading.answer(run)
        slug = answer.slug if answer.status == NAMED else None
        rows.append(_row(run, slug, answer.status == UNSURE, answer.evidence, level, lang))
    return rows


def render_review(rows: list[ReviewRow], lang: str) -> list[str]:
    """One line per ID (`01  High learning rate — loss spikes at 40`), then what 0 means."""
    lines = []
    for row in rows:
        mark = "✗" if row.scores_zero else "·"
        evidence = row.evidence or say(lang, "(no evidence)")
        lines.append(f"{mark} {row.run}  {row.answer} — {evidence}")
    zero = [row.run for row in rows if row.scores_zero]
    if zero:
        lines.append(say(lang, "✗ scores 0: {ids}", ids=", ".join(zero)))
    return lines
