"""The line grammar of a diagnoses file: what each line of Markdown is.

A diagnoses file is read a line at a time. `visible_lines` drops what Markdown hides (HTML
comments, struck-out `~~text~~`) and marks literal lines (inside a code fence, or escaped);
`classify` says what a line is: a heading, a line that starts an ID's section ("## 01",
"### Experiment 02", "01:", "**Run 2**", "1) Fallo: ...", a table row), a label ("Diagnosis: ...",
"**Evidencia:** ...", "### Diagnóstico"), or text. Building sections from these lines is
`diagnoses`'s job; naming breaks is `words`'s.

One escape rule serves the reader and the writer: a line whose first character is a backslash
is literal text (no section, no label, no comment) and that backslash is dropped. The writer
escapes every line of evidence that would otherwise be read as structure (`needs_escape`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grading.words import WORD, fold, folded_words

ANSWER = "answer"
EVIDENCE = "evidence"

# Label words, folded, fillers dropped, joined without spaces ("Por qué" -> "porque").
ANSWER_LABELS = frozenset({
    "diagnosis", "diagnose", "diagnostic", "diagnostico", "break", "fallo", "answer",
    "respuesta", "bug", "verdict", "veredicto", "conclusion", "guess", "hypothesis",
    "hipotesis", "label", "etiqueta"})
EVIDENCE_LABELS = frozenset({
    "evidence", "evidencia", "reasoning", "razonamiento", "reason", "reasons", "razon",
    "razones", "why", "porque", "notes", "note", "notas", "nota", "justification",
    "justificacion", "observations", "observaciones", "explanation", "explicacion",
    "comments", "comentarios", "details", "detalles", "signs", "senales", "signature", "firma",
    "panels", "paneles"})
FILLERS = frozenset({"my", "mi", "our", "nuestro", "nuestra", "your", "tu", "su", "the", "el",
                     "la", "final", "de", "del", "for", "of", "para"})
# Words that may stand before the number in a line that starts a section ("## Experiment 02").
# A closed list, so "### Panel 3" or "Step 2: ..." inside a section start nothing.
ID_WORDS = ANSWER_LABELS | frozenset({
    "experiment", "experimento", "exp", "run", "ejecucion", "corrida", "id", "scenario",
    "escenario", "case", "caso", "test", "prueba", "trial", "model", "modelo", "training",
    "entrenamiento", "job", "dashboard", "number", "numero", "num", "nr", "no", "n"})

HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
BULLETS = re.compile(r"^(?:[ \t]*(?:[-*+•][ \t]+|>[ \t]?))*")
EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])|`+")
BOLD = re.compile(r"^(\*\*|__)(.+?)\1")
STRIKE = re.compile(r"~~.+?~~")
START = re.compile(r"^(?P<prefix>\D*?)(?P<num>\d{1,2})(?!\d)(?P<rest>.*)$")
SEPARATORS = re.compile(r"^[\s:.)\]\-–—|/,;]+")
PREFIX_MARKS = frozenset(" \t#.:-–—°")
LABEL = re.compile(
    r"^(?P<open>[*_]{0,3})(?P<label>[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,3}?)[ \t]*"
    r"(?:\([^)]*\)[ \t]*)?(?P<close>[*_]{0,3})[ \t]*"
    r"(?P<sep>[:=—–]|-(?=[ \t])|$)[ \t]*(?P<value>.*)$")
TITLE_WORDS = frozenset({"diagnoses", "diagnosis", "diagnosticos", "diagnostico"})
TITLE = re.compile(r"^(?P<title>[^\W\d_]+)[ \t]*[—–:-][ \t]*(?P<name>.+?)[ \t]*$")
SCENARIO = re.compile(r"^\s*e?scenario\s*:\s*(?P<code>[^\n]*?)\s*$", re.IGNORECASE)
RULE_CELL = re.compile(r"^:?-+:?$")
ROW_LEVEL = 7  # sections started by a line, not a heading: any heading closes them


@dataclass(frozen=True)
class Line:
    """One line, classified. `text` is what it contributes as free text."""

    text: str
    level: int = 0  # 1-6 for a heading
    id: str | None = None  # the ID whose section this line starts
    role: str | None = None  # ANSWER or EVIDENCE: a label (or an ID led by an answer word)
    label: str = ""  # the label as written: "Diagnóstico"
    value: str = ""  # what follows the label, or the ID
    cells: tuple[str, ...] = ()  # a table row's cells, emphasis removed


def strip_emphasis(text: str) -> str:
    return EMPHASIS.sub("", text)


def visible_lines(text: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """Each line as `(text, literal)` with comments and struck text removed; the comments."""
    lines: list[tuple[str, bool]] = []
    comments: list[str] = []
    comment: list[str] | None = None  # the open comment's lines so far
    fence = ""
    for raw in text.splitlines():
        if comment is None:
            if fence:
                close = FENCE.match(raw)
                if close and close[1][0] == fence[0] and len(close[1]) >= len(fence) \
                        and not raw[close.end():].strip():
                    fence = ""
                lines.append((raw, True))
                continue
            if raw.startswith("\\"):
                lines.append((raw[1:], True))
                continue
            opened = FENCE.match(raw)
            if opened:
                fence = opened[1]
                lines.append((raw, True))
                continue
        shown, pos = [], 0
        while True:
            if comment is not None:
                end = raw.find("-->", pos)
                if end < 0:
                    comment.append(raw[pos:])
                    break
                comment.append(raw[pos:end])
                comments.append("\n".join(comment))
                comment, pos = None, end + 3
            else:
                start = raw.find("<!--", pos)
                if start < 0:
                    shown.append(raw[pos:])
                    break
                shown.append(raw[pos:start])
                comment, pos = [], start + 4
        lines.append((STRIKE.sub("", "".join(shown)), False))
    return lines, comments


def scenario_code(comment: str) -> str | None:
    """The code of a `<!-- scenario: CODE -->` comment (given its inside), else None."""
    match = SCENARIO.match(comment)
    return match["code"] if match and match["code"] else None


def title_name(text: str) -> str | None:
    """The name in a title heading such as `# Diagnoses — Borja` (what the TUI writes), else
    None. Only a level-1 heading whose first word is the title word counts."""
    heading = HEADING.match(text)
    if not heading or len(heading[1]) != 1:
        return None
    match = TITLE.match(strip_emphasis(heading[2] or "").strip())
    if not match or fold(match["title"]) not in TITLE_WORDS:
        return None
    return match["name"]


def label(text: str) -> tuple[str, str, str] | None:
    """`(role, label as written, value)` when `text` is a label line, else None."""
    match = LABEL.match(text)
    if not match:
        return None
    key = "".join(w for w in folded_words(match["label"]) if w not in FILLERS)
    role = ANSWER if key in ANSWER_LABELS else EVIDENCE if key in EVIDENCE_LABELS else None
    if role is None:
        return None
    value = match["value"]
    if match["open"] and not match["close"] and value.startswith(match["open"]):
        value = value[len(match["open"]):].lstrip(" \t")  # "**Diagnosis:** x"
    return role, match["label"], value


def _start(content: str, heading: bool, numbered: bool = False):
    """`(id, role, label, value)` when `content` starts a section, else None.

    Headings are read leniently ("## 1 no warmup"). Other lines need the ID set off, so that
    evidence such as "1. the loss..." or "Run 3 looks the same" starts nothing: "01:",
    "Run 2 —", "02.", a bold "**01**", or the ID alone. "1)" and "1." list items start a
    section when an answer label follows ("1) Fallo: ..."), anywhere; with `numbered`, the
    fallback for a file with no sections at all, they count without one too.
    """
    plain = strip_emphasis(content).strip()
    match = START.match(plain)
    if not match:
        return None
    prefix, num, rest = match["prefix"], match["num"], match["rest"]
    if rest[:1].isalnum() or re.match(r"[.,]\d", rest) or int(num) == 0:
        return None  # "1st", "2x", "1.5"
    words = folded_words(prefix)
    if (set(WORD.sub("", fold(prefix))) - PREFIX_MARKS
            or any(w not in ID_WORDS and w not in FILLERS for w in words)
            or (words and all(w in FILLERS for w in words))):
        return None
    strong = bool(words) or len(num) == 2 or "#" in prefix  # "Run 1", "01", "#1"; not "1"
    value = SEPARATORS.sub("", rest).strip()
    inline = label(value)
    answered = inline is not None and inline[0] == ANSWER  # "1) Fallo: ..." is no evidence
    if not heading and not _set_off(content, num, rest, strong, numbered or answered):
        return None
    if inline and inline[0] == ANSWER:  # "01: Diagnosis: no warmup"
        return f"{int(num):02d}", ANSWER, inline[1], strip_emphasis(inline[2]).strip()
    # "Diagnosis 01: no warmup" answers; "## Diagnóstico 01" alone only titles the section.
    led_by = next((w for w in re.findall(r"[^\W\d_]+", prefix) if fold(w) in ANSWER_LABELS), "")
    if led_by and value:
        return f"{int(num):02d}", ANSWER, led_by, value
    return f"{int(num):02d}", None, "", value


def _set_off(content: str, num: str, rest: str, strong: bool, numbered: bool) -> bool:
    """Whether a line that is no heading sets its ID apart from what follows."""
    bold = BOLD.match(content)
    inner = bold and START.match(strip_emphasis(bold[2]).strip())
    if inner and inner["num"] == num and not SEPARATORS.sub("", inner["rest"]):
        return True  # "**01** anything"
    head = rest.lstrip(" \t")
    if not head:
        return strong  # "01" or "Run 2" alone on its line
    if head[0] in ".)":
        return strong or numbered  # "02." and "Run 2." but not "2.", a list item
    return head[0] in ":—–" or head == "-" or head.startswith("- ")


def _cells(content: str) -> tuple[str, ...]:
    inner = content.strip()
    piped = inner.startswith("|")
    inner = inner[1:] if piped else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    cells = tuple(strip_emphasis(c).strip() for c in inner.split("|"))
    return cells if piped or len(cells) >= 2 else ()


def is_rule(cells: tuple[str, ...]) -> bool:
    """A table's `|---|:---:|` line."""
    return all(RULE_CELL.match(c.replace(" ", "")) or not c for c in cells) and any(cells)


def cell_id(cell: str) -> str | None:
    """The ID a table cell holds ("01", "Run 2", "#3"), else None."""
    start = _start(cell, heading=True)
    return start[0] if start and not start[3] else None


def label_role(cell: str) -> str | None:
    """ANSWER or EVIDENCE when a table header cell is a label word alone."""
    found = label(cell)
    return found[0] if found and not found[2] else None


def classify(text: str, numbered: bool = False) -> Line:
    """What one visible, non-literal line is."""
    heading = HEADING.match(text)
    if heading:
        level, inner = len(heading[1]), heading[2] or ""
        start = _start(inner, heading=True)
        if start:
            return Line(text, level, *start)
        found = label(inner)
        if found:
            return Line(text, level, role=found[0], label=found[1], value=found[2])
        return Line(text, level)
    content = BULLETS.sub("", text, count=1).strip()
    if not content:
        return Line(text)
    start = _start(content, heading=False, numbered=numbered)
    if start:
        return Line(text, 0, *start)
    found = label(content)
    if found:
        return Line(text, role=found[0], label=found[1], value=found[2])
    if "|" in content:
        cells = _cells(content)
        if cells:
            return Line(text, cells=cells)
    return Line(text)


def needs_escape(text: str) -> bool:
    """Whether a line of evidence must be written escaped to be read back as plain text."""
    if (text.lstrip().startswith("\\") or "<!--" in text or "~~" in text
            or FENCE.match(text)):
        return True
    line = classify(text)
    return bool(line.level or line.id or line.role or line.cells)
