"""Writing a diagnoses file (architecture §8): what the TUI saves, in a form the parser reads back.

`format_diagnoses` writes, for each ID, its answer (a slug, or "not sure") and the evidence as
typed. The evidence is kept exactly, up to `normalise_evidence`: any line of it that would read as
structure ("## 02", "Diagnosis: ...", a table row, a comment, a code fence) is escaped with a
leading backslash, which the parser drops (markdown.py). A test proves the round trip on
arbitrary text. Reading stays in `diagnoses`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from grading.diagnoses import CONTROL, normalise_evidence
from grading.markdown import needs_escape
from scenarios.langs import LANGS
from scenarios.words import say

RUN_ID = re.compile(r"^\d\d$")


def _title_name(name: str) -> str:
    # One line of plain text: no comment opener, no markup that could hide the rest.
    return " ".join(re.sub(r"[<>~`\\]", "", CONTROL.sub("", name)).split())[:80]


def format_diagnoses(name: str, code: str, answers: Mapping[str, tuple[str | None, str]],
                     lang: str = "en", level: int = 1) -> str:
    """The Markdown of a diagnoses file: `answers` maps an ID to (slug or None, evidence).

    Raises ValueError for an unknown language, a malformed ID, a slug `level`'s deck lacks, or
    a code that cannot sit in an HTML comment.
    """
    from scenarios import breaks

    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    if not code.strip() or "-->" in code or not code.isprintable():
        raise ValueError(f"scenario code {code!r} cannot be written in a comment")
    known = breaks(level)  # from level 2 on, the healthy decoy's slug too
    # the labels the parser reads back (grading.markdown's ANSWER_LABELS, UNSURE_WORDS)
    title, answer_label = say(lang, "Diagnoses"), say(lang, "Diagnosis")
    evidence_label, unsure = say(lang, "Evidence"), say(lang, "not sure")
    name = _title_name(name)
    lines = [f"# {title} — {name}" if name else f"# {title}", f"<!-- scenario: {code} -->", ""]
    for run_id in sorted(answers):
        slug, evidence = answers[run_id]
        if not RUN_ID.match(run_id) or run_id == "00":
            raise ValueError(f"ID {run_id!r}: expected two digits, 01 to 99")
        if slug is not None and slug not in known:
            raise ValueError(f"{run_id}: {slug!r} is not a break of the catalog")
        lines += [f"## {run_id}", f"{answer_label}: {slug or unsure}"]
        text = normalise_evidence(evidence)
        rest = text.split("\n") if text else []
        if rest and not needs_escape(rest[0]):  # the first line on the label's line, if it can
            lines.append(f"{evidence_label}: {rest.pop(0)}")
        else:
            lines.append(f"{evidence_label}:")
        lines += [f"\\{line}" if needs_escape(line) else line for line in rest]
        lines.append("")
    return "\n".join(lines)
