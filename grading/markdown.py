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

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Possessive repeats (`*+`, `++`) never give back what they took, so no line makes these
# patterns try one split after another: every pattern here reads a line in linear time
# (tests/grading/test_grading_linear.py scans them for adjacent or nested repeats).
BULLETS = re.compile(r"^(?:[ \t]*+(?:[-*+•][ \t]++|>[ \t]?+))*+")
CHECKBOX = re.compile(r"^\[[ xX✓✔]\][ \t]*+")
EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])|`+")
BOLD = re.compile(r"^(\*\*|__)(.+?)\1")
STRIKE = re.compile(r"~~.+?~~")
START = re.compile(r"^(?P<prefix>\D*?)(?P<num>\d{1,2})(?!\d)(?P<rest>.*)$")
SEPARATORS = re.compile(r"^[\s:：.)\]】\-–—|/,;=>→⇒➜➔⟶]++")
PREFIX_MARKS = frozenset(" \t#.:-–—°[(【")
# What may set an ID apart from what follows it on its line ("01:", "Run 2 →", "[03]").
SET_APART = frozenset(":：—–-→⇒➜➔⟶=).]】")
LABEL = re.compile(
    r"^(?P<open>[*_]{0,3}+)(?P<label>[^\W\d_]++(?:[ \t]++[^\W\d_]++){0,3}?)[ \t]*+"
    r"(?:\([^)]*+\)[ \t]*+)?(?P<close>[*_]{0,3}+)[ \t]*+"
    r"(?P<sep>[:=—–]|-(?=[ \t])|$)[ \t]*+(?P<value>.*)$")
TITLE_WORDS = frozenset({"diagnoses", "diagnosis", "diagnosticos", "diagnostico"})
TITLE = re.compile(r"^(?P<title>[^\W\d_]++)[ \t]*+[—–:-][ \t]*+(?P<name>.+)$")
SCENARIO = re.compile(r"^\s*+e?scenario\s*+:", re.IGNORECASE)
RULE_CELL = re.compile(r"^:?-++:?$")
ROW_DEPTH = 7  # sections started by a line, not a heading: any heading closes them


@dataclass(frozen=True)
class Line:
    """One line, classified. `text` is what it contributes as free text."""

    text: str
    depth: int = 0  # 1-6 for a heading (the number of #)
    id: str | None = None  # the ID whose section this line starts
    role: str | None = None  # ANSWER or EVIDENCE: a label (or an ID led by an answer word)
    label: str = ""  # the label as written: "Diagnóstico"
    value: str = ""  # what follows the label, or the ID
    cells: tuple[str, ...] = ()  # a table row's cells, emphasis removed
    # A numbered list item ("2. ...", "3) ...", "(1) ..."): it opens `id`'s section only when
    # its words name a break (`diagnoses` decides, with the level's words); else it is text.
    item: bool = False

    def as_text(self) -> Line:
        """The line read as evidence, not as the start of a section."""
        return Line(self.text, cells=self.cells)


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


def heading(text: str) -> tuple[int, str] | None:
    """`(depth, inner text)` when `text` is an ATX heading ("## 01 ##" -> (2, "01")), else None.
    Plain string code: the closing `#`s are cut once, from the right."""
    stripped = text.lstrip(" ")
    if len(text) - len(stripped) > 3:
        return None
    depth = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[depth:]
    if not 1 <= depth <= 6 or (rest and rest[0] not in " \t"):
        return None
    inner = rest.strip(" \t")
    body = inner.rstrip("#")
    if body != inner and (not body or body[-1] in " \t"):
        inner = body.rstrip(" \t")  # "## 01 ##": the closing sequence is no content
    return depth, inner


def scenario_code(comment: str) -> str | None:
    """The code of a `<!-- scenario: CODE -->` comment (given its inside), else None."""
    match = SCENARIO.match(comment)
    if not match:
        return None
    code = comment[match.end():].strip()
    return code if code and "\n" not in code else None


def title_name(text: str) -> str | None:
    """The name in a title heading such as `# Diagnoses — Borja` (what the TUI writes), else
    None. Only a `#` heading (depth 1) whose first word is the title word counts."""
    found = heading(text)
    if not found or found[0] != 1:
        return None
    match = TITLE.match(strip_emphasis(found[1]).strip())
    if not match or fold(match["title"]) not in TITLE_WORDS:
        return None
    return match["name"].rstrip(" \t") or None


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


@dataclass(frozen=True)
class _Start:
    id: str
    role: str | None
    label: str
    value: str
    item: bool = False  # a numbered list item: a section only if its words name a break


def _start(content: str, heading: bool) -> _Start | None:
    """How `content` starts a section, else None (architecture §8, "the section rule").

    The first token - after list markers, a checkbox, opening brackets, `#`, or words of the
    closed list `ID_WORDS` ("Run", "Experimento", ...) - must be an ID of one or two digits.
    Headings are read leniently ("## 1 no warmup"). Other lines need the ID set apart by
    punctuation (`SET_APART`: "01:", "Run 2 →", "[03]", "**01**") or alone on the line ("01",
    "Run 2"), so that "Run 3 looks the same" starts nothing. A bare number followed by "." or
    ")" ("2. ...", "(3) ...") is a numbered list item: it starts a section when an answer
    label follows ("1) Fallo: ..."); otherwise it is an `item`, which `diagnoses` opens only
    when its words name a break.
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
    run_id = f"{int(num):02d}"
    if inline is not None and inline[0] == ANSWER:  # "01: Diagnosis: no warmup"
        if heading or _set_off(content, num, rest, strong) is not None:
            return _Start(run_id, ANSWER, inline[1], strip_emphasis(inline[2]).strip())
        return None
    item = False
    if not heading:
        set_off = _set_off(content, num, rest, strong)
        if set_off is None:
            return None
        item = set_off == "item"
    # "Diagnosis 01: no warmup" answers; "## Diagnóstico 01" alone only titles the section.
    led_by = next((w for w in re.findall(r"[^\W\d_]+", prefix) if fold(w) in ANSWER_LABELS), "")
    if led_by and value:
        return _Start(run_id, ANSWER, led_by, value)
    return _Start(run_id, None, "", value, item)


def _set_off(content: str, num: str, rest: str, strong: bool) -> str | None:
    """Whether a line that is no heading sets its ID apart from what follows: "id" when it
    does, "item" for a numbered list item ("2.", "(3)"), None when it does not."""
    bold = BOLD.match(content)
    inner = bold and START.match(strip_emphasis(bold[2]).strip())
    if inner and inner["num"] == num and not SEPARATORS.sub("", inner["rest"]):
        return "id"  # "**01** anything"
    head = rest.lstrip(" \t")
    if not head:
        return "id" if strong else None  # "01" or "Run 2" alone on its line
    mark, after = head[0], head[1:2]
    if mark not in SET_APART or after.isdigit():
        return None  # "Run 3 looks", "2:1", "1-2 steps"
    if mark == "-" and after not in ("", " ", "\t", "-", ">"):
        return None  # "2-layer"
    if mark in ".)]】" and not strong:
        return "item"  # "2.", "3)", "(3)", "[1]": a list item, or a reference in the evidence
    return "id"


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
    return start.id if start and not start.value else None


def label_role(cell: str) -> str | None:
    """ANSWER or EVIDENCE when a table header cell is a label word alone."""
    found = label(cell)
    return found[0] if found and not found[2] else None


def classify(text: str) -> Line:
    """What one visible, non-literal line is."""
    found_heading = heading(text)
    if found_heading:
        depth, inner = found_heading
        start = _start(inner, heading=True)
        if start:
            return Line(text, depth, start.id, start.role, start.label, start.value)
        found = label(inner)
        if found:
            return Line(text, depth, role=found[0], label=found[1], value=found[2])
        return Line(text, depth)
    content = CHECKBOX.sub("", BULLETS.sub("", text, count=1).strip(), count=1)
    if not content:
        return Line(text)
    start = _start(content, heading=False)
    cells = _cells(content) if "|" in content else ()
    if start:
        return Line(text, 0, start.id, start.role, start.label, start.value,
                    cells if start.item else (), start.item)
    found = label(content)
    if found:
        return Line(text, role=found[0], label=found[1], value=found[2])
    return Line(text, cells=cells)


def needs_escape(text: str) -> bool:
    """Whether a line of evidence must be written escaped to be read back as plain text."""
    if (text.lstrip().startswith("\\") or "<!--" in text or "~~" in text
            or FENCE.match(text)):
        return True
    line = classify(text)
    return bool(line.depth or line.id or line.role or line.cells)
