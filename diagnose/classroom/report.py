"""`diagnose class-report`: which breaks the class found hard, on one offline page.

From the gradebook's rows (`grading.gradebook.gradebook_rows`: each student's counted attempt
and the truth of their scenario) it counts, per level: for each break, how many of the students
who handed in had it and how many found it; what each break was taken for (a confusion table,
true break × diagnosed break, "no answer" for an ID left unsure or blank); the scores'
histogram; and who has not handed in (no counted attempt, or a bundle that cannot be opened).
The same summary is printed (`summary_lines`) and written as one HTML page (`render_html`):
inline CSS, no script, no network, like the dashboards; every text escaped.

Not here: grading (`diagnose.classroom.grading`), the gradebook files (`grading.gradebook`,
`grading.lms`).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from diagnose import __version__
from grading.gradebook import Row
from scenarios.words import N_, say

NO_ANSWER = N_("no answer")


@dataclass
class LevelSummary:
    """One level of the class: its students, what they found and what they took it for."""

    level: int
    students: int = 0
    handed_in: int = 0
    max_score: int = 0
    had: Counter = field(default_factory=Counter)      # slug -> students who had it and handed in
    found: Counter = field(default_factory=Counter)    # slug -> of them, who found it
    confusion: Counter = field(default_factory=Counter)  # (true slug, diagnosed or None) -> n
    scores: Counter = field(default_factory=Counter)   # score -> students

    def taken_for(self, slug: str) -> list[tuple[str | None, int]]:
        """What `slug` was diagnosed as when it was missed, most often first."""
        wrong = Counter({d: n for (t, d), n in self.confusion.items() if t == slug and d != t})
        return sorted(wrong.items(), key=lambda item: (-item[1], item[0] is None, item[0] or ""))

    def hardest(self) -> list[str]:
        """The breaks dealt, the least often found first (by share, then name)."""
        return sorted(self.had, key=lambda s: (self.found[s] / self.had[s], s))


@dataclass
class ClassSummary:
    levels: dict[int, LevelSummary]
    students: int
    missing: list[tuple[str, str]]  # (student, why: no submission, or the bundle's problem)


def summarise(rows: Sequence[Row]) -> ClassSummary:
    """The class from its gradebook rows (refused-file rows are not students: leave them out)."""
    levels: dict[int, LevelSummary] = {}
    missing = []
    for row in rows:
        level = levels.setdefault(row.level or 1, LevelSummary(row.level or 1))
        level.students += 1
        counted = row.first
        if counted is None or row.error:
            missing.append((row.student, row.error))
            continue
        level.handed_in += 1
        level.max_score = max(level.max_score, counted.max_score)
        level.scores[counted.score] += 1
        for run_id, truth in row.truth.items():
            answer = counted.answers.get(run_id)
            level.had[truth] += 1
            level.found[truth] += answer == truth
            level.confusion[truth, answer] += 1
    return ClassSummary(dict(sorted(levels.items())), len(rows), missing)


def _answer(slug: str | None, lang: str) -> str:
    return slug if slug is not None else say(lang, NO_ANSWER)


def summary_lines(summary: ClassSummary, lang: str = "en") -> list[str]:
    """The summary as printed: per level each break, found k/n and what it was taken for;
    the scores; who has not handed in."""
    handed = summary.students - len(summary.missing)
    out = [say(lang, "{students} students: {handed} handed in, {missing} not.",
               students=summary.students, handed=handed, missing=len(summary.missing))]
    for level in summary.levels.values():
        out.append(say(lang, "Level {level} ({handed} of {students} handed in):",
                       level=level.level, handed=level.handed_in, students=level.students))
        width = max((len(s) for s in level.had), default=0)
        for slug in level.hardest():
            taken = ", ".join(f"{_answer(d, lang)} {n}" for d, n in level.taken_for(slug))
            line = f"  {slug:<{width}}  " + say(lang, "found {found}/{had}",
                                                 found=level.found[slug], had=level.had[slug])
            out.append(line + ("; " + say(lang, "taken for: {taken}", taken=taken)
                               if taken else ""))
        if level.handed_in:
            out.append("  " + say(lang, "Scores:") + " " + "  ".join(
                f"{score}/{level.max_score}: {level.scores[score]}"
                for score in range(level.max_score + 1)))
    if summary.missing:
        out.append(say(lang, "Not handed in: {students}",
                       students=", ".join(name for name, _ in summary.missing)))
    return out


CSS = """
:root { --ink: #1d232b; --muted: #5f6b78; --rule: #d9dee4; --paper: #fff; --back: #f4f6f8;
        --good: #2a9a45; --bad: #d1242f; --bar: #1f6fb4; }
* { box-sizing: border-box; }
body { margin: 0; padding: 18px 22px; background: var(--back); color: var(--ink);
       font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { margin: 0 0 4px; font-size: 22px; } h2 { font-size: 18px; margin: 22px 0 8px; }
h3 { font-size: 15px; margin: 0 0 8px; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 14px; }
.card { background: var(--paper); border: 1px solid var(--rule); border-radius: 8px;
        padding: 12px 14px; min-width: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 8px; text-align: left; border-bottom: 1px solid var(--rule); }
th { font-weight: 600; }
td.n { text-align: right; }
code { white-space: nowrap; }
.meter { display: inline-block; width: 120px; height: 10px; background: #e6e9ed;
         border-radius: 5px; overflow: hidden; vertical-align: middle; }
.meter > span { display: block; height: 100%; background: var(--good); }
.confusion td.n { min-width: 3.2em; text-align: center; }
.confusion th.diag { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: 500;
                     white-space: nowrap; }
.hit { background: rgba(42, 154, 69, var(--share)); }
.miss { background: rgba(209, 36, 47, var(--share)); }
.hist { display: flex; align-items: flex-end; gap: 10px; height: 140px; padding-top: 8px; }
.hist div { flex: 1; display: flex; flex-direction: column; justify-content: flex-end;
            align-items: center; height: 100%; }
.hist i { display: block; width: 100%; background: var(--bar); border-radius: 4px 4px 0 0; }
.hist b { font-weight: 500; font-size: 12px; }
ul.missing { columns: 3 14em; margin: 0; padding-left: 18px; }
footer { margin-top: 18px; color: var(--muted); font-size: 12px; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _level_html(level: LevelSummary, lang: str) -> list[str]:
    name = say(lang, "Level {level}", level=level.level)
    counts = say(lang, "{handed} of {students} handed in", handed=level.handed_in,
                 students=level.students)
    found = say(lang, "Which breaks were found")
    heads = [say(lang, "break"), say(lang, "found"), "", say(lang, "most often taken for")]
    out = [f"<h2>{_e(name)} <span class='muted'>· {_e(counts)}</span></h2>"]
    if not level.handed_in:
        nobody = say(lang, "Nobody has handed in yet.")
        return [*out, f"<p class='muted'>{_e(nobody)}</p>"]
    out += ["<div class='cards'>", "<section class='card'>",
           f"<h3>{_e(found)}</h3>", "<table>",
           "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in heads) + "</tr>"]
    for slug in level.hardest():
        share = level.found[slug] / level.had[slug]
        taken = ", ".join(f"{_answer(d, lang)} ({n})" for d, n in level.taken_for(slug)[:2])
        out.append(f"<tr><td><code>{_e(slug)}</code></td><td class='n'>{level.found[slug]}/"
                   f"{level.had[slug]}</td><td><span class='meter'><span style='width:"
                   f"{share:.0%}'></span></span></td><td>{_e(taken or '—')}</td></tr>")
    out += ["</table>", "</section>"]
    diagnosed = sorted({d for _, d in level.confusion}, key=lambda d: (d is None, d or ""))
    matrix = say(lang, "True break × diagnosis")
    out += ["<section class='card'>", f"<h3>{_e(matrix)}</h3>", "<table class='confusion'>",
            "<tr><th></th>" + "".join(f"<th class='diag'>{_e(_answer(d, lang))}</th>"
                                      for d in diagnosed) + "</tr>"]
    for truth in sorted(level.had):
        cells = []
        for d in diagnosed:
            n = level.confusion[truth, d]
            kind = "hit" if d == truth else "miss"
            style = f" style='--share:{n / level.had[truth]:.2f}'" if n else ""
            cells.append(f"<td class='n {kind}'{style}>{n or ''}</td>")
        out.append(f"<tr><th><code>{_e(truth)}</code></th>{''.join(cells)}</tr>")
    scores = say(lang, "Scores")
    out += ["</table>", "</section>", "<section class='card'>", f"<h3>{_e(scores)}</h3>",
            "<div class='hist'>"]
    top = max(level.scores.values(), default=0) or 1
    for score in range(level.max_score + 1):
        n = level.scores[score]
        out.append(f"<div><b>{n}</b><i style='height:{n / top * 100:.0f}%'></i>"
                   f"<span>{score}/{level.max_score}</span></div>")
    out += ["</div>", "</section>", "</div>"]
    return out


def render_html(summary: ClassSummary, lang: str = "en", *, title: str = "",
                now: datetime | None = None) -> str:
    """The page: self-contained (inline CSS, no script, nothing loaded), every text escaped."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    handed = summary.students - len(summary.missing)
    heading = say(lang, "Class report") + (f" — {title}" if title else "")
    counts = say(lang, "{students} students: {handed} handed in, {missing} not.",
                 students=summary.students, handed=handed, missing=len(summary.missing))
    out = ["<!DOCTYPE html>", f"<html lang='{_e(lang)}'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{_e(heading)}</title><style>{CSS}</style></head><body>",
           f"<header><h1>{_e(heading)}</h1><p class='muted'>{_e(counts)} · {_e(stamp)}</p>"
           "</header>"]
    for level in summary.levels.values():
        out += _level_html(level, lang)
    if summary.missing:
        missing = say(lang, "Not handed in")
        out += [f"<h2>{_e(missing)}</h2>", "<section class='card'>",
                "<ul class='missing'>"]
        out += [f"<li>{_e(name)}" + (f" <span class='muted'>({_e(why)})</span>" if why else "")
                + "</li>" for name, why in summary.missing]
        out += ["</ul>", "</section>"]
    made = say(lang, "Written by diagnose {version}. Opens offline; nothing is loaded.",
               version=__version__)
    private = say(lang, "Private: it holds the truth of every scenario of the class.")
    out += [f"<footer>{_e(made)} {_e(private)}</footer>", "</body></html>", ""]
    return "\n".join(out)


def class_report(bundles: Path, secret: bytes) -> ClassSummary:
    """The summary of a dealt class, from what its ledger and key say."""
    from grading.gradebook import gradebook_rows

    return summarise(gradebook_rows(bundles, secret))
