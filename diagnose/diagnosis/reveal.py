"""The reveal: which break each ID held, explained with that run's own numbers.

Writes `solutions/03-three-failures-ref.md` next to `experiments/` and marks the workspace as
revealed; beside it, the signatures page (`...-ref-signatures.md`): what every break of the
levels played so far looks like on this engine, measured over many seeds
(`diagnose/diagnosis/pages/`,
one file per language, checked by bench/deck_texts.py), which nothing the game prints shows
before a level's first reveal. The solutions file ends with the same page. The texts come from
the catalog (what was changed, what each panel shows and why,
where this engine differs from the course, the real-world versions), which state the deck's
measured ranges; what this one run showed comes from its own metrics read against its
reference (the diagnostician's findings, and under each panel's text `panel_facts`), never from
the catalog. Opening the sealed key is `grading.seal`'s job; this module asks it with the
secret it is given.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import scenarios
from diagnose.diagnosis.diagnostician import Diagnosis, diagnose_run, findings_for, panel_facts
from diagnose.home import self_study_secret
from diagnose.workspace import REFERENCE, Workspace, WorkspaceError, open_workspace
from grading.grade import GradeOptions, known_breaks
from grading.layout import KEY_FILE
from grading.seal import SealedBy, unseal
from scenarios.errors import UserError
from scenarios.files import atomic_write
from scenarios.words import N_, say

PANEL_LINE = N_("Panel {n}: {text}")
SIGNATURES_PAGE = "signatures.{lang}.md"  # in diagnose/diagnosis/pages/, one per language of LANGS
PAGE_END = "\n---\n"  # the page's last line: its deck table ends before it
# a deck row starts with its levels and its break: "| 2, 3 | healthy |"
TABLE_ROW = re.compile(r"\| ([0-9]+(?:, [0-9]+)*) \| ([a-z][a-z0-9-]*) \|")


def signatures_page(level: int, lang: str) -> str:
    """The signatures page in `lang`, the deck table's rows of the breaks the catalog deals at
    `level` or before, each row's levels the catalog's (levels.toml's): a later level's answers
    stay unseen, and a row of a break the catalog no longer holds is not shown."""
    page = resources.files(__package__).joinpath("pages", SIGNATURES_PAGE.format(lang=lang))
    text = page.read_text(encoding="utf-8").split(PAGE_END)[0]
    breaks = scenarios.default_catalog().breaks
    kept = []
    for line in text.splitlines():
        row = TABLE_ROW.match(line)
        if row is None:
            kept.append(line)
            continue
        dealt = breaks[row.group(2)].levels if row.group(2) in breaks else ()
        if dealt and min(dealt) <= level:
            kept.append(f"| {', '.join(map(str, dealt))} |" + line[row.end(1) + 2:])
    return "\n".join(kept) + "\n"


def signatures_path(workspace: Workspace) -> Path:
    """The signatures page, beside the solutions file: `<its stem>-signatures.md`."""
    solutions = workspace.solutions_path
    return solutions.with_stem(solutions.stem + "-signatures")


def open_assignment(workspace: Workspace, secret: bytes | None = None) -> dict[str, str]:
    """ID -> slug, opened with `secret` (default: the self-study secret)."""
    secret = secret if secret is not None else self_study_secret()
    return known_breaks(unseal(workspace.sealed_text(), secret, workspace.code),
                        workspace.path / KEY_FILE)


def _verdicts(workspace: Workspace) -> tuple[dict[str, Any], dict[str, Diagnosis]]:
    """The reference's header, and the diagnostician's verdict on every ID (each run read once),
    weighed against the scenario's own level's deck."""
    header, reference = workspace.read_run(REFERENCE)
    deck = scenarios.level(workspace.level).deck
    return header, {rid: diagnose_run(workspace.read_run(rid)[1], reference, header, deck)
                    for rid in workspace.ids}


def _lines(verdict: Diagnosis, slug: str, header: dict[str, Any], lang: str) -> list[str]:
    """The panel lines that show `slug` in the run the verdict read (none for an empty run)."""
    found = findings_for(slug, verdict.figures, header) if verdict.figures else []
    return [say(lang, PANEL_LINE, n=f.panel, text=f.text[lang]) for f in found]


def evidence(workspace: Workspace | Path, lang: str = "en",
             assignment: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Per ID, the panel lines that show its break with the run's numbers.

    With `assignment`, the lines speak for the true break; without, for the break the run's
    metrics point to (the same, whenever the dealer's check passed).
    """
    workspace = workspace if isinstance(workspace, Workspace) else open_workspace(workspace)
    header, verdicts = _verdicts(workspace)
    return {rid: _lines(verdict, (assignment or {}).get(rid) or verdict.slug, header, lang)
            for rid, verdict in verdicts.items()}


def render_solutions(workspace: Workspace, assignment: dict[str, str], lang: str = "en",
                     now: datetime | None = None) -> str:
    catalog = scenarios.breaks(workspace.level)  # the level's deck, its healthy decoy too
    header, verdicts = _verdicts(workspace)
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    out = ["# " + say(lang, "Solutions — scenario {code}", code=workspace.code), "",
           say(lang, "Revealed on {stamp}.", stamp=stamp), "",
           say(lang, "| ID | break |"), "|---|---|"]
    out += [f"| {rid} | {catalog[slug].title[lang]} (`{slug}`) |"
            for rid, slug in assignment.items()]
    for rid, slug in assignment.items():
        brk = catalog[slug]
        text = brk.reveal[lang]
        verdict = verdicts[rid]
        out += ["", f"## {rid} — {brk.title[lang]} (`{slug}`)", "",
                say(lang, "**What was changed.** {text}", text=text.changed), "",
                say(lang, "**What this run showed (its own numbers, against the reference):**"),
                ""]
        out += [f"- {line}" for line in _lines(verdict, slug, header, lang)]
        out += ["", say(lang, "The automatic diagnostician read it as `{slug}` ({confidence:.0%}).",
                        slug=verdict.slug, confidence=verdict.confidence), "",
                say(lang, "**How the panels show it, and why:**"), ""]
        rest = [n for n in text.panels if n not in brk.signature]
        facts = panel_facts(verdict.figures, header) if verdict.figures else {}
        for n in (*brk.signature, *rest):
            out.append("- " + say(lang, PANEL_LINE, n=n, text=text.panels[n]))
            if n in facts:  # the catalog's text speaks of the deck; this, of this run
                out.append("  " + say(lang, "*This run:* {text}.", text=facts[n].text[lang]))
        out += ["", say(lang, "**Where this engine differs from the course's table.** {text}",
                        text=text.engine_differs), "",
                say(lang, "**In real code.** {text}", text=text.real_world)]
    page = re.sub(r"^#", "##", signatures_page(workspace.level, lang), flags=re.M)  # a section
    return "\n".join(out) + "\n\n" + page


def write_solutions(workspace: Workspace | Path, lang: str = "en", *,
                    assignment: dict[str, str] | None = None, secret: bytes | None = None,
                    by: str = "reveal") -> Path:
    """Write the solutions file next to `experiments/` and mark the workspace revealed."""
    workspace = workspace if isinstance(workspace, Workspace) else open_workspace(workspace)
    assignment = assignment if assignment is not None else open_assignment(workspace, secret)
    text = render_solutions(workspace, assignment, lang)
    path = workspace.solutions_path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WorkspaceError(f"{path.parent}: cannot be written ({err.strerror or err})",
                             hint="reveal from a folder you can write to") from None
    atomic_write(path, text, error=WorkspaceError)
    atomic_write(signatures_path(workspace), signatures_page(workspace.level, lang),
                 error=WorkspaceError)
    workspace.mark_revealed(by)
    return path


def reveal_scenario(directory: Path, lang: str = "en") -> tuple[Workspace, dict[str, str], Path]:
    """`diagnose reveal`: open a self-study scenario's key and write its solutions; returns
    the workspace, ID -> slug and the solutions file. An instructor's bundle is refused: its
    key opens with the instructor's only."""
    workspace = open_workspace(directory)
    if workspace.key == SealedBy.INSTRUCTOR:
        raise UserError(f"{directory}: this scenario was dealt by an instructor; its answers "
                        "open with the instructor's key (hand in your diagnoses file)")
    assignment = open_assignment(workspace)
    return workspace, assignment, write_solutions(workspace, lang, assignment=assignment)


def feedback_numbers(workspace: Path, lang: str, secret: bytes) -> dict[str, list[str]] | None:
    """Each run's own numbers for the grader's feedback on a miss; None if they cannot be had.

    The numbers are a hint: a missing or corrupt metrics file must not stop a grade.
    """
    from grading.grade import open_key, read_scenario

    try:
        return evidence(workspace, lang, open_key(read_scenario(workspace), secret))
    except Exception:  # noqa: BLE001 - see the docstring
        return None


def feedback_options(lang: str, secret: bytes) -> GradeOptions:
    """A grading's feedback in `lang`, each miss with that run's own numbers."""
    return GradeOptions(lang, evidence=lambda workspace: feedback_numbers(workspace, lang,
                                                                          secret))


def reveal_after_grading(workspace: Path, lang: str, secret: bytes) -> tuple[Path | None,
                                                                           list[str]]:
    """Self-study grading shows the truth, so it reveals too: (solutions file, warnings).

    When the solutions cannot be written, the reveal is still recorded: the feedback already
    showed every answer.
    """
    warnings = []
    try:
        return write_solutions(workspace, lang, secret=secret, by="grade"), warnings
    except UserError as err:
        warnings.append(f"solutions not written ({err})")
    try:
        open_workspace(workspace).mark_revealed("grade")
    except UserError as err:
        warnings.append(f"the reveal was not recorded ({err})")
    return None, warnings
