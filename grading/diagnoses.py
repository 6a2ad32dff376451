"""Reading a diagnoses file: which break each ID's section names, and how that was decided.

Forgiving in what it reads (architecture §8): UTF-8 with or without a BOM, any line ending, headings
of any level or `01:` lines for sections, answer labels in English or Spanish, bold or not, a
table with a Diagnosis column, even a bare numbered list when nothing else marks sections.
Strict in what it calls an answer: for each section, the first of these that exists decides —

1. its answer lines (`Diagnosis:`, `Diagnóstico:`, `Break:`, `Fallo:`, `Answer:`, ...),
   even when they name nothing ("not sure") — the explicit answer wins over the evidence;
2. the words after the ID on the line that opened it ("## 01 — no warmup"), if they name a break;
3. the section's free text.

What decides must name exactly one break (`NAMED`); two or more is `AMBIGUOUS`, none is
`NOTHING`/`EMPTY`/`UNSURE`, and an ID without a section is `MISSING`. Negation is not
understood: "not <slug>" names <slug> (words.py). The reading also keeps the file's
scenario comments and the name in its title (`# Diagnoses — Borja`), which a class grading
cross-checks. Scoring and feedback live elsewhere.

Refused, with `DiagnosesError`: a file over 1 MiB (before reading it all), UTF-16 text, binary
content (a NUL byte), text that is not UTF-8. Anything else parses, the same way every time.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from grading import markdown as md
from grading.words import Mention, Vocabulary, default_vocabulary, folded_words
from scenarios.errors import UserError
from scenarios.files import read_small

MAX_BYTES = 1024 * 1024



class Status(StrEnum):
    """How one ID's answer was read (the value is what JSON results and records say)."""

    NAMED = "named"          # exactly one break
    AMBIGUOUS = "ambiguous"  # two or more
    NOTHING = "nothing"      # words, but no break's
    EMPTY = "empty"          # no words at all
    UNSURE = "unsure"        # "I don't know" (UNSURE_WORDS)
    MISSING = "missing"      # no section for the ID


class Source(StrEnum):
    """What decided an answer: its answer line, its heading after the ID, or its free text."""

    LABEL = "label"
    HEADING = "heading"
    TEXT = "text"


NAMED, AMBIGUOUS, NOTHING, EMPTY, UNSURE, MISSING = Status  # the package's names since 0.1
FROM_LABEL, FROM_HEADING, FROM_TEXT = Source

# Answers that say "I don't know" (folded words), told apart from answers naming no break.
UNSURE_WORDS = frozenset({
    "not sure", "unsure", "dont know", "don t know", "do not know", "no idea", "unknown",
    "idk", "tbd", "todo", "pending", "n a", "no lo se", "no se", "no estoy seguro",
    "no estoy segura", "ni idea", "desconocido", "pendiente"})
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GradeError(UserError):
    """Anything about grading the user must fix; one line saying what. The package's root error."""


class DiagnosesError(GradeError):
    """A diagnoses file that cannot be read at all; one line saying why."""


@dataclass(frozen=True)
class Answer:
    """How one ID's section was read."""

    id: str
    status: Status
    slug: str | None  # the break named, when exactly one was
    source: Source | None = None  # what decided; None for a missing section
    label: str = ""  # the answer label as written ("Diagnóstico"), for FROM_LABEL
    read: str = ""  # the answer's words (label value or heading text); "" for free text
    mentions: tuple[Mention, ...] = ()  # the breaks named by what decided
    evidence: str = ""  # the section's other text, normalised

    @property
    def slugs(self) -> tuple[str, ...]:
        return tuple(sorted({s for m in self.mentions for s in m.slugs}))


@dataclass(frozen=True)
class Reading:
    """A whole file, read once: its lines classified, its scenario comments and title name.

    `answers` (an Answer per ID found, in file order) and `duplicates` are worked out from the
    classified lines with `level`'s words the first time they are asked for; `at_level` gives
    the same lines with another level's words, so a file is parsed once at any level.
    """

    lines: tuple[md.Line, ...] = field(repr=False)  # every visible line, classified
    codes: tuple[str, ...]  # every distinct `<!-- scenario: CODE -->`, in order
    sha256: str
    name: str | None = None  # the name in the title, `# Diagnoses — Borja`, if any
    level: int = 1  # the deck whose words it is read with
    vocabulary: Vocabulary | None = field(default=None, repr=False, compare=False)

    def at_level(self, level: int) -> Reading:
        """The same file read with another level's words (a scenario's own deck)."""
        if level == self.level:
            return self
        return replace(self, level=level, vocabulary=None)

    @functools.cached_property
    def _sections(self) -> tuple[_Section, ...]:
        words = self.vocabulary or default_vocabulary(self.level)
        sections = _sections(self.lines, words) or _sections(self.lines, words, numbered=True)
        return tuple(sections.values())

    @functools.cached_property
    def answers(self) -> tuple[Answer, ...]:
        words = self.vocabulary or default_vocabulary(self.level)
        return tuple(_resolve(s, words) for s in self._sections)

    @property
    def duplicates(self) -> tuple[str, ...]:
        """IDs with more than one section (read together)."""
        return tuple(s.id for s in self._sections if s.opened > 1)

    def answer(self, run_id: str) -> Answer:
        for found in self.answers:
            if found.id == run_id:
                return found
        return Answer(run_id, MISSING, None)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.answers)


def normalise_evidence(text: str) -> str:
    """Evidence as it reads back: one newline style, no control characters, no edge blanks."""
    return "\n".join(CONTROL.sub("", line).rstrip() for line in text.splitlines()).strip()


def read_diagnoses(path: Path, vocabulary: Vocabulary | None = None, level: int = 1) -> Reading:
    """Read a diagnoses file, or raise DiagnosesError saying why it cannot be read."""
    data = read_small(Path(path), "a diagnoses file", MAX_BYTES, error=DiagnosesError)
    return parse_diagnoses(data, vocabulary, source=str(path), level=level)


def parse_diagnoses(data: bytes | str, vocabulary: Vocabulary | None = None,
                    source: str = "diagnoses", level: int = 1) -> Reading:
    """Read a diagnoses file's content with `level`'s words (or `vocabulary`);
    DiagnosesError only for the refusals above."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_BYTES:
        raise DiagnosesError(f"{source}: not a diagnoses file (over 1 MiB)")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # what Windows Notepad calls "Unicode"
        raise DiagnosesError(f"{source}: UTF-16 text; save it as UTF-8")
    if b"\x00" in raw:
        raise DiagnosesError(f"{source}: binary content, not a Markdown text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DiagnosesError(f"{source}: not UTF-8 text; save it as UTF-8") from None
    visible, comments = md.visible_lines(text)
    seen: dict[str, md.Line] = {}  # a line repeated (a pasted table, a template) is read once
    lines = []
    for line, literal in visible:
        if literal:
            lines.append(md.Line(line))
        elif (classified := seen.get(line)) is None:
            lines.append(seen.setdefault(line, md.classify(line)))
        else:
            lines.append(classified)
    codes = (md.scenario_code(c) for c in comments)
    titles = (md.title_name(line.text) for line in lines if line.depth == 1)
    return Reading(
        lines=tuple(lines), codes=tuple(dict.fromkeys(c for c in codes if c)),
        sha256=hashlib.sha256(raw).hexdigest(),
        name=next((t for t in titles if t), None), level=level, vocabulary=vocabulary)


@dataclass
class _Section:
    id: str
    depth: int  # the heading depth that opened it (md.ROW_DEPTH for other lines)
    opened: int = 1
    labels: list[tuple[str, str]] = field(default_factory=list)  # (label as written, value)
    headline: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    awaiting: bool = False  # a bare "Diagnosis:" takes the next line as its value

    def answer(self, label: str, value: str) -> None:
        value = md.strip_emphasis(value).strip()
        self.labels.append((label, value))
        self.awaiting = not value


@dataclass(frozen=True)
class _Table:
    roles: tuple[str | None, ...]  # each header cell's label role
    labels: tuple[str, ...]
    keyed: bool  # rows that start with an ID are sections


def _header(cells: tuple[str, ...]) -> _Table:
    roles = tuple(md.label_role(c) for c in cells)
    first = " ".join(folded_words(cells[0]))
    keyed = md.ANSWER in roles or first in md.ID_WORDS or not first
    return _Table(roles, cells, keyed)


def _sections(lines: tuple[md.Line, ...], vocabulary: Vocabulary,
              numbered: bool = False) -> dict[str, _Section]:
    """Sections from classified lines. A numbered item ("2. ...") opens its ID's section when
    its words name a break (or, with `numbered`, in a file with no other sections) and it is
    not the section already open; otherwise it is evidence."""
    reader = _SectionReader(vocabulary, numbered)
    for line in lines:
        reader.read(line)
    return reader.sections


class _SectionReader:
    """What `_sections` knows between two lines: the sections so far, the one open, the table
    being read, and which texts name a break (asked once each)."""

    def __init__(self, vocabulary: Vocabulary, numbered: bool) -> None:
        self.vocabulary, self.numbered = vocabulary, numbered
        self.sections: dict[str, _Section] = {}
        self.current: _Section | None = None
        self.table: _Table | None = None
        self.names_a_break: dict[str, bool] = {}

    def open_section(self, run_id: str, depth: int) -> _Section:
        section = self.sections.get(run_id)
        if section is None:
            section = self.sections[run_id] = _Section(run_id, depth)
        else:  # a second section for the same ID: read both together
            section.opened += 1
            section.depth = depth
        section.awaiting = False
        return section

    def names(self, text: str) -> bool:
        if text not in self.names_a_break:
            self.names_a_break[text] = bool(self.vocabulary.mentions(text))
        return self.names_a_break[text]

    def read(self, line: md.Line) -> None:
        if line.item and ((self.current is not None and self.current.id == line.id)
                          or not (self.numbered or self.names(line.value))):
            line = line.as_text()
        if not line.cells:
            self.table = None
        elif self._row(line):
            return
        self._line(line)

    def _row(self, line: md.Line) -> bool:
        """A table's line; True when the table takes it (a rule, its header, a keyed row)."""
        if md.is_rule(line.cells):
            return True
        row_id = md.cell_id(line.cells[0])
        if self.table is None:  # a table's first row: its header, unless it starts with an ID
            self.table = _header(line.cells) if row_id is None else _Table((), (), True)
            if row_id is None and self.table.keyed:
                return True
        if row_id and self.table.keyed:
            _fill_row(self.open_section(row_id, md.ROW_DEPTH), line.cells, self.table)
            self.current = None  # a row is a whole section
            return True
        return False

    def _line(self, line: md.Line) -> None:
        """A line outside a table's keyed rows: it opens, closes or fills the open section."""
        if line.id:
            opened = self.current = self.open_section(line.id, line.depth or md.ROW_DEPTH)
            if line.role == md.ANSWER:
                opened.answer(line.label, line.value)
            elif line.value:
                opened.headline.append(md.strip_emphasis(line.value))
            return
        current = self.current
        if current is None:
            return
        if line.depth and line.depth <= current.depth:
            self.current = None  # a heading as high as the section's own closes it
        elif line.role == md.ANSWER:
            current.answer(line.label, line.value)
        elif line.role == md.EVIDENCE:
            current.awaiting = False
            if line.value:
                current.body.append(line.value)
        elif current.awaiting and line.text.strip() and not line.depth:
            current.answer(current.labels.pop()[0], md.BULLETS.sub("", line.text, count=1))
        else:
            current.body.append(line.text)


def _fill_row(section: _Section, cells: tuple[str, ...], table: _Table) -> None:
    """A table row: the header's answer column answers; without one, the second cell."""
    if md.ANSWER in table.roles:
        for index, cell in enumerate(cells[1:], start=1):
            if index < len(table.roles) and table.roles[index] == md.ANSWER:
                section.answer(table.labels[index], cell)
            elif cell:
                section.body.append(cell)
        return
    if len(cells) > 1 and cells[1]:
        section.headline.append(cells[1])
    section.body.extend(c for c in cells[2:] if c)


def _resolve(section: _Section, vocabulary: Vocabulary) -> Answer:
    evidence = normalise_evidence("\n".join(section.body))
    headline = " ".join(section.headline).strip()
    if section.labels:
        source, label = FROM_LABEL, section.labels[0][0]
        read = " / ".join(value for _, value in section.labels if value)
        mentions = vocabulary.mentions_each([value for _, value in section.labels])
    elif headline and (mentions := vocabulary.mentions(headline)):
        source, label, read = FROM_HEADING, "", headline
    else:
        source, label, read = FROM_TEXT, "", ""
        mentions = vocabulary.mentions(evidence)
    slugs = {s for m in mentions for s in m.slugs}
    if len(slugs) == 1:
        status = NAMED
    elif slugs:
        status = AMBIGUOUS
    elif source == FROM_LABEL and not read:
        status = EMPTY
    elif source == FROM_LABEL and " ".join(folded_words(read)) in UNSURE_WORDS | {""}:
        status = UNSURE  # "not sure", "no lo sé", "?"
    else:
        status = NOTHING
    return Answer(section.id, status, next(iter(slugs)) if status == NAMED else None, source,
                  label, read, mentions, evidence)
