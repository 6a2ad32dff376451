"""Scoring a reading against the truth, and saying so, per ID and for the whole file.

`score` gives one `Result` per ID of the scenario: what was read and what it was taken to mean,
the truth, right or wrong, and for a miss the panels that would have shown it (the catalog's
reveal texts) with that run's own numbers when the caller has them (`evidence`, from the app's
diagnostician: this package reads no metrics). `Report` (a grading) and `Check` (a reading
without the key) render as plain text for a terminal, with an optional `style(text, role)` hook
for colour, and as JSON. Reading files, keys and attempts is `grade`'s job.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grading.attempts import Attempt
from grading.diagnoses import (
    AMBIGUOUS,
    EMPTY,
    FROM_HEADING,
    FROM_LABEL,
    FROM_TEXT,
    MISSING,
    NAMED,
    NOTHING,
    UNSURE,
    Answer,
    Reading,
)
from grading.words import Mention
from scenarios import Break
from scenarios.words import N_, say

Style = Callable[[str, str], str]  # (text, role) -> text; roles: title, right, wrong, score, note
WIDTH = 88

# What the words read for an ID were taken to mean, by (Answer.status, where they were read)
DESCRIPTIONS = {
    (NAMED, FROM_LABEL): N_("Read {read} on the {label} line: {slug}."),
    (NAMED, FROM_HEADING): N_("Read {read} after the ID: {slug}."),
    (NAMED, FROM_TEXT): N_("No answer line; the free text names only {slug} ({words})."),
    (AMBIGUOUS, FROM_LABEL): N_('The {label} line {read} names {n} breaks: {listing}; an answer '
                               'must name exactly one (and "not X" still names X).'),
    (AMBIGUOUS, FROM_HEADING): N_("{read} after the ID names {n} breaks: {listing}; an answer "
                                 "must name exactly one."),
    (AMBIGUOUS, FROM_TEXT): N_("No answer line, and the free text names {n} breaks: {listing}; "
                              'put the one you mean on a "Diagnosis:" line.'),
    (EMPTY, FROM_LABEL): N_("The {label} line is empty."),
    (UNSURE, FROM_LABEL): N_("The {label} line says {read}: no answer."),
    (NOTHING, FROM_LABEL): N_("The {label} line {read} names no break of the catalog."),
    (NOTHING, FROM_TEXT): N_('No answer line, and the section names no break; put one on a '
                            '"Diagnosis:" line.'),
}
# An answer's status in one or two words (`diagnose grade --check`)
STATUSES = {AMBIGUOUS: N_("ambiguous"), NOTHING: N_("no break"), EMPTY: N_("empty"),
            UNSURE: N_("not sure"), MISSING: N_("missing")}
# Said by the autograder and the gradebook too, in the same words
HEADER = N_("Scenario {code} · {file}")
SCORE = N_("Score: {score}/{max}")
COUNTS = N_("First attempt: this one counts.")
LATER = N_("First attempt {score}/{max} on {date}; this one (attempt {n}) does not count.")
COUNTS_UNTIL_SHOWN = N_("This one counts: a corrected file handed in later replaces it, until "
                        "the answers are shown.")
REPLACES = N_("This one counts: it replaces attempt {n} ({score}/{max}), until the answers are "
              "shown.")
REPEAT = N_("The same file as attempt {n}: graded again, not a new attempt.")
AFTER_SHOWN = N_("Graded after the answers were shown: this one does not count.")
COUNTED = N_("Attempt {n}, {score}/{max} on {date}, counts.")
NOT_RECORDED = N_("Not recorded: this grading is no attempt.")
NONE_COUNTS = N_("No attempt counts: none was made before the answers were shown.")
PANELS_HEADING = N_("The panels that show it:")
THIS_RUN = N_("In this run:")
# A miss points to the panels of its break's signature: "Panel 2 (LR): <the reveal's text>"
PANEL_LINES = {"1": N_("Panel 1 (Loss): {text}"), "2": N_("Panel 2 (LR): {text}"),
               "3": N_("Panel 3 (Grad norm): {text}"), "4": N_("Panel 4 (Activations): {text}"),
               "5": N_("Panel 5 (Spectral): {text}"), "6": N_("Panel 6 (Dead): {text}")}


def _plain(text: str, role: str) -> str:
    return text


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def quote(lang: str, text: str) -> str:
    return say(lang, '"{text}"', text=text)


def verdict(lang: str, right: bool) -> str:
    """One word: right or wrong."""
    return say(lang, "right") if right else say(lang, "wrong")


def _words(mentions: Sequence[Mention], lang: str, limit: int = 3) -> str:
    unique = list(dict.fromkeys(m.words for m in mentions))
    return ", ".join(quote(lang, _clip(w, 40)) for w in unique[:limit]) + (
        ", …" if len(unique) > limit else "")


def describe(answer: Answer, lang: str = "en") -> str:
    """One sentence: the words read for this ID and what they were taken to mean."""
    if answer.status == MISSING or answer.source is None:
        return say(lang, "No section for {id} was found.", id=answer.id)
    listing = "; ".join(
        f"{slug} ({_words([m for m in answer.mentions if slug in m.slugs], lang)})"
        for slug in answer.slugs) if len(answer.slugs) > 1 else ""
    return say(lang, DESCRIPTIONS[answer.status, answer.source],
               read=quote(lang, _clip(answer.read)), label=answer.label, slug=answer.slug,
               n=len(answer.slugs), listing=listing, words=_words(answer.mentions, lang))


def notes(reading: Reading, ids: Sequence[str], lang: str, *,
          check: bool = False) -> tuple[str, ...]:
    """What is worth saying about the file as a whole."""
    said = []
    if not reading.answers:
        said.append(say(lang, 'No sections found: start each with a heading such as "## 01".'))
    extra = [i for i in reading.ids if i not in ids]
    if extra:
        said.append(say(lang, "Sections for {ids} were found, but this scenario has only "
                        "{known}: ignored.", ids=", ".join(extra), known=", ".join(ids)))
    if reading.duplicates:
        said.append(say(lang, "{ids}: more than one section; they were read together.",
                        ids=", ".join(reading.duplicates)))
    missing = [i for i in ids if i not in reading.ids]
    if missing:  # the shapes the reader knows, so a hand-written file can be fixed
        said.append(say(
            lang, 'No section for {ids}. A section starts with a heading ("## 01", '
            '"### Run 2"), a line whose first token is its ID set apart by punctuation ("01:", '
            '"Run 1 —", "ID 02:", "[03]", "- [x] Run 2 →"), a numbered line that answers or '
            'names a break ("1) Diagnosis: ...", "2. bad init"), or a table row '
            '("| 01 | no warmup |").', ids=", ".join(missing)))
    if check and not reading.codes:
        said.append(say(lang, "No <!-- scenario: CODE --> comment: fine on your own; in a "
                        "class your file is matched to you by its name."))
    return tuple(said)


@dataclass(frozen=True)
class Result:
    id: str
    answer: Answer
    truth: str
    correct: bool
    reading: str  # describe(answer)
    verdict: str  # "Right: 01 was <slug> (...)."
    panels: tuple[str, ...]  # for a miss: "Panel 2 (LR): ..."
    numbers: tuple[str, ...]  # for a miss: the run's own evidence, as given
    lang: str

    @property
    def feedback(self) -> str:
        parts = [self.reading, self.verdict]
        if self.panels:
            parts += [say(self.lang, PANELS_HEADING), *self.panels]
        if self.numbers:
            parts += [say(self.lang, THIS_RUN), "; ".join(self.numbers) + "."]
        return " ".join(parts)

    def render(self, style: Style, width: int = WIDTH) -> list[str]:
        role = "right" if self.correct else "wrong"
        lines = [style(f"{self.id}  {verdict(self.lang, self.correct)}", role)]
        lines += _wrap(self.reading, 4, width=width) + _wrap(self.verdict, 4, width=width)
        if self.panels:
            lines += _wrap(say(self.lang, PANELS_HEADING), 4, width=width)
            lines += [line for panel in self.panels for line in _wrap(panel, 6, 8, width)]
        if self.numbers:
            lines += _wrap(say(self.lang, THIS_RUN), 4, width=width)
            lines += [line for number in self.numbers for line in _wrap(number, 6, 8, width)]
        return lines


def _wrap(text: str, indent: int, hanging: int | None = None, width: int = WIDTH) -> list[str]:
    """`text` in lines of at most `width` columns (the terminal's, in the app)."""
    return textwrap.wrap(text, max(width, 20 + 2 * indent), initial_indent=" " * indent,
                         subsequent_indent=" " * (hanging or indent),
                         break_long_words=False, break_on_hyphens=False) or [""]


def score(reading: Reading, assignment: Mapping[str, str], catalog: Mapping[str, Break], *,
          lang: str = "en", evidence: Mapping[str, Sequence[str]] | None = None
          ) -> tuple[Result, ...]:
    """One Result per ID of `assignment` (ID -> true slug), in ID order."""
    results = []
    for run_id in sorted(assignment):
        answer, truth = reading.answer(run_id), assignment[run_id]
        correct = answer.status == NAMED and answer.slug == truth
        brk = catalog.get(truth)
        said = (say(lang, "Right: {id} was {slug}: {title}.", id=run_id, slug=truth,
                    title=brk.title[lang] if brk else truth) if correct else
                say(lang, "Wrong: {id} was {slug}: {title}.", id=run_id, slug=truth,
                    title=brk.title[lang] if brk else truth))
        panels = () if correct or brk is None else tuple(
            say(lang, PANEL_LINES[n], text=brk.reveal[lang].panels[n]) for n in brk.signature)
        numbers = () if correct else tuple(str(e) for e in (evidence or {}).get(run_id, ()))
        results.append(Result(run_id, answer, truth, correct, describe(answer, lang), said,
                              panels, numbers, lang))
    return tuple(results)


@dataclass(frozen=True)
class Report:
    """One grading of one file against one scenario, and where it stands under the attempt
    policy (`grading.policy`): whether it `counts`, and if not, the attempt that does
    (`first`, numbered `counted_n`; None: none does)."""

    code: str
    file: str
    time: str  # ISO-8601 UTC of this grading
    sha256: str
    results: tuple[Result, ...]
    attempt: int  # this attempt's number (1 for the first); a repeat's: the one it repeats
    after_reveal: bool
    first: Attempt | None  # the attempt that counts, when it is an earlier one
    notes: tuple[str, ...]
    lang: str
    counts: bool = True
    rule: str = "first"  # grading.policy's SHOWS_AT_ONCE or SHOWS_NOTHING
    shown: bool = False  # the answers were shown before this attempt: it never counts
    repeat: bool = False  # the same bytes as attempt `attempt`: not a new attempt
    replaces: Attempt | None = None  # class grading: the earlier attempt this one replaces
    replaced_n: int = 0
    counted_n: int = 0  # the number of `first`
    recorded: bool = True  # False: graded only, no attempt (outside a deal folder)

    @property
    def score(self) -> int:
        return sum(r.correct for r in self.results)

    @property
    def max_score(self) -> int:
        return len(self.results)

    @property
    def standing(self) -> str:
        """Which attempt counts, in one or two sentences."""
        if not self.recorded:
            return say(self.lang, NOT_RECORDED)
        said = [say(self.lang, REPEAT, n=self.attempt)] if self.repeat else []
        first = self.first
        if self.counts:
            if self.repeat:
                said.append(say(self.lang, COUNTED, n=self.attempt, score=self.score,
                                max=self.max_score, date=self.time[:10]))
            elif self.rule == "first":
                said.append(say(self.lang, COUNTS))
            elif self.replaces is not None:
                said.append(say(self.lang, REPLACES, n=self.replaced_n,
                                score=self.replaces.score, max=self.replaces.max_score))
            else:
                said.append(say(self.lang, COUNTS_UNTIL_SHOWN))
            return " ".join(said)
        if self.shown and not self.repeat:
            if self.rule == "first" and first is not None and self.after_reveal:
                said.append(say(self.lang, "First attempt {score}/{max} on {date}; this one "
                                "after the reveal does not count.", score=first.score,
                                max=first.max_score, date=first.date))
                return " ".join(said)
            said.append(say(self.lang, AFTER_SHOWN))
        if first is None:
            said.append(say(self.lang, NONE_COUNTS))
        elif self.rule == "first" and not self.shown and not self.repeat:
            said.append(say(self.lang, LATER, score=first.score, max=first.max_score,
                            date=first.date, n=self.attempt))
        else:
            said.append(say(self.lang, COUNTED, n=self.counted_n, score=first.score,
                            max=first.max_score, date=first.date))
        return " ".join(said)

    def to_json(self) -> dict[str, Any]:
        first = self.first
        return {
            "score": self.score,
            "max_score": self.max_score,
            "results": [{"id": r.id, "answer": r.answer.slug, "truth": r.truth,
                         "correct": r.correct, "feedback": r.feedback} for r in self.results],
            "attempt": self.attempt,
            "after_reveal": self.after_reveal,
            "counts": self.counts and self.recorded,
            "repeat": self.repeat,
            "recorded": self.recorded,
            "first_attempt": None if first is None else {
                "time": first.time, "score": first.score, "max_score": first.max_score},
            "code": self.code,
            "file": self.file,
            "time": self.time,
            "notes": list(self.notes),
        }

    def render(self, style: Style | None = None, width: int = WIDTH) -> str:
        """The feedback as text, each paragraph wrapped at `width` columns."""
        style = style or _plain
        lines = [style(say(self.lang, HEADER, code=self.code, file=self.file), "title"), ""]
        for result in self.results:
            lines += result.render(style, width)
        lines += [""] + [style(line, "note") for n in self.notes
                         for line in _wrap(n, 0, width=width)]
        lines.append(style(say(self.lang, SCORE, score=self.score, max=self.max_score),
                           "score"))
        lines += _wrap(self.standing, 0, width=width)
        return "\n".join(lines)


@dataclass(frozen=True)
class Check:
    """A file read without the key: what each ID's answer was taken to mean."""

    file: str
    code: str | None
    ids: tuple[str, ...]
    reading: Reading
    lang: str

    @property
    def answers(self) -> tuple[Answer, ...]:
        return tuple(self.reading.answer(i) for i in self.ids)

    @property
    def named(self) -> int:
        return sum(a.status == NAMED for a in self.answers)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "code": self.code,
            "ids": [{"id": a.id, "answer": a.slug, "status": a.status,
                     "reading": describe(a, self.lang)} for a in self.answers],
            "named": self.named,
            "notes": list(notes(self.reading, self.ids, self.lang, check=True)),
        }

    def render(self, style: Style | None = None, width: int = WIDTH) -> str:
        """How the file reads, each paragraph wrapped at `width` columns."""
        style = style or _plain
        head = say(self.lang, "Checked {file}", file=self.file)
        if self.code:
            head += say(self.lang, " · scenario {code}", code=self.code)
        lines = [style(head, "title"), ""]
        for answer in self.answers:
            named = answer.status == NAMED
            shown = answer.slug if named else say(self.lang, STATUSES[answer.status])
            lines.append(style(f"{answer.id}  {shown}", "right" if named else "wrong"))
            lines += _wrap(describe(answer, self.lang), 4, width=width)
        lines.append("")
        lines += [style(line, "note") for n in notes(self.reading, self.ids, self.lang,
                                                      check=True)
                  for line in _wrap(n, 0, width=width)]
        lines += _wrap(say(self.lang, "{k} of {n} IDs name one break. Nothing is scored "
                           "without the key.", k=self.named, n=len(self.ids)), 0, width=width)
        return "\n".join(lines)
