"""Reading is linear: no pattern that matches user text may backtrack over the same characters
twice, and every shape of text reads back the same way however it is grown.

The scan reads each `re` call's pattern in the modules that match what people write, parses its
structure here (groups, alternatives, repeats: `Syntax` below; the character set of each atom
is asked of `re` itself, through its public API), and refuses two shapes:

- adjacent repeats: two unbounded repeats that can take the same character with nothing between
  them but what both can take (`[ \\t]*x?[ \\t]*`, `.*?[ \\t]+$`, `[^@]+\\.[^@]+$`);
- nested repeats: a repeat whose body ends with an unbounded repeat that can take what the next
  round starts with (`(?:a+)+`, `(?:[ \\t]*-[ \\t]+)*`).

Possessive repeats (`*+`, `++`) and atomic groups never give back what they took, so they are
exempt. The scanner's own verdicts are tested on known shapes, so a scanner that passes
everything fails here.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.diagnoses import parse_diagnoses

ROOT = Path(__file__).resolve().parents[2]
# Where text a person wrote meets a pattern: the grader, the catalog's loader, and the app's
# readers of names, rosters, addresses and arguments.
SCANNED = sorted([*ROOT.glob("grading/*.py"), *ROOT.glob("scenarios/*.py"),
                  *(ROOT / "diagnose" / name for name in (
                      "classroom/deal.py", "runs/show.py", "classroom/cluster.py",
                      "game/scenario.py", "cli/common.py", "cli/game.py", "cli/grade.py",
                      "cli/classroom.py", "cli/runs.py", "classroom/gradescope.py", "home.py",
                      "workspace.py", "views/run_bars.py", "game/progress.py",
                      "tui/diagnoses.py", "tui/drafts.py"))])
RE_CALLS = {"compile", "match", "fullmatch", "search", "sub", "subn", "findall", "finditer",
            "split"}
UNIVERSE = frozenset(map(chr, range(128))) | frozenset(
    "éÉñÑßüç—–→•º°ªµ\u00a0\u2003\u3000٣٤１ﬁ€×ǂ\u0301\u200b【】：")
UNBOUNDED = None
OPENERS = (("(?:", "group"), ("(?>", "atomic"), ("(?=", "assert"), ("(?!", "assert"),
           ("(?<=", "assert"), ("(?<!", "assert"), ("(?P<", "named"), ("(", "group"))


@functools.cache
def _chars(atom: str) -> frozenset[str]:
    """The characters of UNIVERSE one atom (`a`, `\\s`, `[^@,]`, `.`) matches, asked of `re`."""
    matcher = re.compile(atom)
    return frozenset(c for c in UNIVERSE if matcher.fullmatch(c))


class Syntax:
    """A pattern's structure: ("seq", [node]), ("alt", [seq]), ("group", atomic?, seq),
    ("assert", seq), ("repeat", low, high, mode, node), ("char", chars), ("empty",)."""

    def __init__(self, pattern: str) -> None:
        self.text, self.at = pattern, 0

    def parse(self):
        node = self._alt()
        assert self.at == len(self.text), f"unparsed: {self.text[self.at:]!r}"
        return node

    def _peek(self, n: int = 1) -> str:
        return self.text[self.at:self.at + n]

    def _alt(self):
        branches = [self._seq()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self._seq())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def _seq(self):
        items = []
        while self.at < len(self.text) and self._peek() not in "|)":
            items.append(self._quantified(self._atom()))
        return ("seq", items)

    def _atom(self):
        text, start = self.text, self.at
        char = text[start]
        if char == "(":
            opener, kind = next(pair for pair in OPENERS if text.startswith(pair[0], start))
            self.at = start + len(opener)
            if kind == "named":
                self.at = text.index(">", self.at) + 1
            inner = self._alt()
            assert self._peek() == ")", f"no ) in {text!r}"
            self.at += 1
            if kind == "assert":
                return ("assert", inner)
            return ("group", kind == "atomic", inner)
        if char == "[":
            end = start + 1 + (text[start + 1] == "^")
            end += text[end] == "]"  # a ] first is a literal
            while text[end] != "]":
                end += 2 if text[end] == "\\" else 1
            self.at = end + 1
            return ("char", _chars(text[start:self.at]))
        if char == "\\":
            nxt = text[start + 1]
            if nxt.isdigit():  # a back-reference: anything, of any length
                self.at = start + 2
                return ("repeat", 0, 1, "greedy", ("char", UNIVERSE))
            if nxt in "AbBZ":
                self.at = start + 2
                return ("empty",)
            width = {"x": 4, "u": 6, "U": 10}.get(nxt, 2)
            self.at = start + width
            return ("char", _chars(text[start:self.at]))
        self.at = start + 1
        if char in "^$":
            return ("empty",)
        return ("char", _chars(re.escape(char) if char != "." else "."))

    def _quantified(self, node):
        text = self.text
        while True:
            char = self._peek()
            if char in ("*", "+", "?") and char:
                low, high = {"*": (0, UNBOUNDED), "+": (1, UNBOUNDED), "?": (0, 1)}[char]
                self.at += 1
            elif char == "{" and (bounds := re.match(r"\{(\d*)(,?)(\d*)\}", text[self.at:])):
                low = int(bounds[1] or 0)
                high = (int(bounds[3]) if bounds[3] else UNBOUNDED) if bounds[2] else low
                self.at += bounds.end()
            else:
                return node
            mode = {"?": "lazy", "+": "possessive"}.get(self._peek(), "greedy")
            self.at += mode != "greedy"
            node = ("repeat", low, high, mode, node)


@dataclass
class Shape:
    """What a piece of a pattern can take, and which backtracking repeats show at its edges."""

    chars: frozenset[str] = frozenset()
    nullable: bool = True
    first: frozenset[str] = frozenset()  # chars it can start with
    last: frozenset[str] = frozenset()  # chars it can end with
    lead: frozenset[str] = frozenset()  # chars of unbounded repeats reachable from the start
    trail: frozenset[str] = frozenset()  # ... and from the end
    problems: list[str] = field(default_factory=list)


def _union(shapes, name: str) -> frozenset[str]:
    return frozenset().union(*(getattr(s, name) for s in shapes))


def _shape(node) -> Shape:
    kind = node[0]
    if kind == "char":
        return Shape(node[1], False, node[1], node[1])
    if kind == "empty":
        return Shape()
    if kind == "assert":
        return Shape(problems=_shape(node[1]).problems)
    if kind == "seq":
        return _sequence([_shape(item) for item in node[1]])
    if kind == "alt":
        shapes = [_shape(branch) for branch in node[1]]
        return Shape(_union(shapes, "chars"), any(s.nullable for s in shapes),
                     *(_union(shapes, name) for name in ("first", "last", "lead", "trail")),
                     [p for s in shapes for p in s.problems])
    if kind == "group":
        inner = _shape(node[2])
        if node[1]:  # atomic: nothing inside is tried again
            return Shape(inner.chars, inner.nullable, inner.first, inner.last,
                         problems=inner.problems)
        return inner
    _, low, high, mode, body = node
    inner = _shape(body)
    problems = list(inner.problems)
    edges = (inner.chars, low == 0 or inner.nullable, inner.first, inner.last)
    if mode == "possessive":
        return Shape(*edges, problems=problems)
    loop = inner.trail & (inner.lead | inner.first)  # one round's end, the next's start
    if high != 1 and loop:
        problems.append("nested repeats over " + _show(loop))
    if high is UNBOUNDED:  # its rounds start with `first` and end with `last`
        return Shape(*edges, inner.first | inner.lead, inner.last | inner.trail, problems)
    return Shape(*edges, inner.lead, inner.trail, problems)


def _sequence(shapes: list[Shape]) -> Shape:
    problems = [p for s in shapes for p in s.problems]
    pending: list[tuple[frozenset[str], frozenset[str]]] = []  # (a repeat's chars, between)
    for shape in shapes:
        for chars, between in pending:
            both = chars & shape.lead
            if both and between <= both:
                problems.append("adjacent repeats over " + _show(both))
        if not shape.nullable:
            pending = [(c, b | shape.chars) for c, b in pending if shape.chars <= c]
        if shape.trail:
            pending.append((shape.trail, frozenset()))

    def edge(ordered, name):
        found: frozenset[str] = frozenset()
        for shape in ordered:
            found |= getattr(shape, name)
            if not shape.nullable:
                break
        return found

    return Shape(_union(shapes, "chars"), all(s.nullable for s in shapes),
                 edge(shapes, "first"), edge(shapes[::-1], "last"), edge(shapes, "lead"),
                 edge(shapes[::-1], "trail"), problems)


def _show(chars: frozenset[str]) -> str:
    shown = "".join(sorted(chars))[:12]
    return repr(shown + ("..." if len(chars) > 12 else ""))


def backtracking(pattern: str) -> list[str]:
    """The shapes of `pattern` that can make a match try one split after another."""
    re.compile(pattern)  # a pattern `re` refuses is no pattern to scan
    return _shape(Syntax(pattern).parse()).problems


def patterns_in(path: Path) -> list[tuple[int, str]]:
    """Every literal pattern passed to an `re` function in a module, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in RE_CALLS and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value))
    return found


@pytest.mark.parametrize("pattern", [
    r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$",  # the heading of issue 20
    r"^(?P<t>[^\W\d_]+)[ \t]*[—–:-][ \t]*(?P<name>.+?)[ \t]*$",  # the title
    r"^(?P<l>\w+)[ \t]*(?P<close>[*_]{0,3})[ \t]*(?P<sep>:|$)",  # the label
    r"^\s*(\d*)\s*:\s*(\d*)\s*$",
    r"^[^@\s,<>]+@[^@\s,<>]+\.[^@\s,<>]+$",
    r"(?:a+)+b", r"(?:\s*-\s+)*x", r"(?:a+b?)+c",
])
def test_the_scan_refuses_backtracking_shapes(pattern):
    assert backtracking(pattern)


@pytest.mark.parametrize("pattern", [
    r"^ {0,3}(`{3,}|~{3,})", r"[^\W_]+", r"^:?-+:?$", r"^(?:[ \t]*+(?:[-*+•][ \t]++|>))*+",
    r"^(?P<t>[^\W\d_]++)[ \t]*+[—–:-][ \t]*+(?P<name>.+)$", r"(?:\s+\w+)*", r"^\d{4}-\d\d$",
    r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", r"(?>a+)+b", r"^\s*+(\d*+)\s*+:\s*+(\d*+)\s*+$",
])
def test_the_scan_accepts_linear_shapes(pattern):
    assert backtracking(pattern) == []


def test_no_pattern_that_reads_user_text_backtracks():
    found = {f"{path.relative_to(ROOT)}:{line} {pattern!r}: {problem}"
             for path in SCANNED for line, pattern in patterns_in(path)
             for problem in backtracking(pattern)}
    assert not found, "\n".join(sorted(found))
    assert sum(len(patterns_in(path)) for path in SCANNED) > 20  # the scan saw the patterns


# --- every character class, grown: the same reading at every size ----------------------------

# Runs of each character class a line can hold, and the marks the grammar reacts to.
CLASSES = [" ", "\t", "#", "*", "_", "-", ">", "|", ":", ".", ")", "]", "[", "(", "~", "`",
           "<!--", "-->", "\\", "0", "1", "a", "É", "ß", "—", "→", "\u00a0", "\u0301", "•",
           "Diagnosis", "Run", "bad init", "\r"]
PREFIXES = ["", "## 01", "## 01\nDiagnosis:", "# Diagnoses —", "01:", "- [x] Run 2 →", "> ",
            "| 01 | ", "1. ", "<!-- scenario:", "**"]


@st.composite
def grown_files(draw):
    """A file built of runs of character classes, nested, on long lines, or mixed."""
    prefix = draw(st.sampled_from(PREFIXES))
    runs = draw(st.lists(st.tuples(st.sampled_from(CLASSES), st.integers(1, 60)),
                         min_size=1, max_size=6))
    body = "".join(cls * count for cls, count in runs)
    tail = draw(st.sampled_from(["", "x", "\n", " bad init", ":", "\n## 02\nno warmup"]))
    return prefix + body + tail


@settings(max_examples=examples(150), deadline=None)
@given(grown_files(), st.integers(2, 5))
def test_grown_shapes_read_the_same_way_at_every_size(text, times):
    """Any shape reads the same way twice and as bytes; a section's ID is written in the file;
    and repeating a shape on more lines finds the sections of one copy (unless the shape opens
    a fence or a comment, which the next copy closes). The bench grows these shapes to 1 MiB."""
    once = parse_diagnoses(text)
    assert parse_diagnoses(text) == once
    assert once.answers == parse_diagnoses(text.encode("utf-8")).answers
    for answer in once.answers:
        assert answer.status in ("named", "ambiguous", "nothing", "empty", "unsure")
        assert str(int(answer.id)) in text
    many = parse_diagnoses("\n".join([text] * times))
    if not any(mark in text for mark in ("```", "~~~", "<!--", "-->")):
        assert set(many.ids) == set(once.ids)
