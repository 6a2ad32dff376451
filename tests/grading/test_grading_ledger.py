"""The instructor's ledger over generated classes (issues 20 and 34): whatever students do to
their bundles (swap them, copy a classmate's records, delete or restore an old attempts file,
write any bytes into any of its files) and whatever fails after the ledger's write, a score, the
attempt that counts and the manifest never change because of it, no score is ever credited to
the wrong student, and no attempt made after the answers were shown ever counts.

Real files, real seals, real failures (OSError and KeyboardInterrupt raised where the bundle is
written); only the workspaces are built without training, as the grader's other tests do.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from grading_testkit import dealing_secret, make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from grading import DEFAULT_DIR, GradeError, grade_bundles, gradebook_rows
from grading import gradebook as gradebook_module
from grading import ledger as ledger_module
from grading.grade import GradeOptions
from grading.gradebook import dealt_students
from grading.ledger import mark_shown, read_ledger

TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}
WRONG = {"no-warmup": "bad init", "broken-mask": "no warmup", "bad-init": "broken mask"}
POOL = ("ana", "Borja", "José", "luis-m", "Ñoño")
CODES = [f"{'ABCDE'[i] * 4}-{i}{i}{i}{i}" for i in range(len(POOL))]
KEY = dealing_secret(CODES)  # deals TRUTH to every code, as `deal` derives it
FILES = ("scenario.json", "answer-key.sealed", "attempts.jsonl", "01/metrics.jsonl",
         "reveal.json")
DAY = datetime(2025, 3, 2, 9, 0, tzinfo=UTC)


def operations(names: list[str]) -> st.SearchStrategy:
    student = st.sampled_from(names)
    return st.one_of(
        st.tuples(st.just("grade"), student, st.integers(0, 3)),
        st.tuples(st.just("single"), student, st.integers(0, 3)),
        st.tuples(st.just("fail"), student, st.integers(0, 3)),
        st.tuples(st.just("kill"), student, st.integers(0, 3)),
        st.tuples(st.just("full"), student, st.integers(0, 3)),
        st.tuples(st.just("delete"), student),
        st.tuples(st.just("swap"), student, student),
        st.tuples(st.just("unswap"), student),
        st.tuples(st.just("copy"), student, student),
        st.tuples(st.just("old copy"), student),
        st.tuples(st.just("scribble"), student, st.sampled_from(FILES), st.binary(max_size=64)),
        st.tuples(st.just("show"), student),
    )


class Class:
    """A dealt class and what the instructor knows happened to it."""

    def __init__(self, root: Path, names: list[str]) -> None:
        self.root, self.bundles = root, root / "bundles"
        self.codes = {name: CODES[i] for i, name in enumerate(names)}
        for name, code in self.codes.items():
            make_workspace(self.workspace(name), KEY, code, TRUTH, "instructor")
            shutil.copytree(self.workspace(name), root / "dealt" / name)
        (self.bundles / "manifest.csv").write_text(
            "student,code\n" + "".join(f"{n},{c}\n" for n, c in self.codes.items()))
        self.manifest = (self.bundles / "manifest.csv").read_bytes()
        self.counted: dict[str, tuple[int, str]] = {}  # the attempt that counts: score, sha256
        self.shown: set[str] = set()  # students shown the answers: nothing later counts
        self.handed_in: dict[str, set[str]] = {n: set() for n in names}  # sha256 per student
        self.holds = dict(self.codes)  # the scenario each student's folder holds now
        self.copies = 0

    @property
    def swapped(self) -> set[str]:
        return {name for name, code in self.holds.items() if code != self.codes[name]}

    def workspace(self, name: str) -> Path:
        return self.bundles / name / DEFAULT_DIR

    def submission(self, name: str, right: int) -> Path:
        self.copies += 1
        text = f"# Diagnoses — {name}\n<!-- copy {self.copies} -->\n" + "".join(
            f"## {i}\nDiagnosis: {slug if n < right else WRONG[slug]}\n"
            for n, (i, slug) in enumerate(TRUTH.items()))
        path = self.root / "subs" / str(self.copies) / f"{name}.md"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        return path

    def grade(self, kind: str, name: str, right: int, monkeypatch) -> None:
        file = self.submission(name, right)
        placed = None
        if kind == "single":
            placed = next(s for s in dealt_students(self.bundles) if s.name == name)
        failure = {"fail": OSError(28, "No space left on device"),
                   "kill": KeyboardInterrupt()}.get(kind)
        def fail(*args, **kwargs):
            raise failure

        if failure is not None:
            monkeypatch.setattr(gradebook_module, "rewrite_attempts", fail)
        if kind == "full":  # the ledger cannot be written: nothing is recorded at all
            failure = GradeError("No space left on device")
            monkeypatch.setattr(ledger_module, "atomic_write", fail)
        try:
            (graded,) = grade_bundles([file], self.bundles, KEY, GradeOptions(now=DAY), placed)
        except KeyboardInterrupt:
            graded = None  # killed after the ledger was written: it counts all the same
        except GradeError:
            assert kind == "full"
            return
        finally:
            monkeypatch.undo()
        sha = hashlib.sha256(file.read_bytes()).hexdigest()
        counts = name not in self.shown  # class grading: the last attempt before answers shown
        if graded is not None:
            assert graded.report is not None, graded.error
            assert graded.report.sha256 == sha and graded.report.score == right
            assert graded.report.counts == counts
        self.handed_in[name].add(sha)
        if counts:
            self.counted[name] = (right, sha)

    def check(self) -> None:
        assert (self.bundles / "manifest.csv").read_bytes() == self.manifest
        for row in gradebook_rows(self.bundles, KEY):
            kept = self.counted.get(row.student)
            assert row.code == self.codes[row.student] and row.truth == TRUTH
            if kept is None:
                assert row.first is None
                continue
            assert row.first is not None and row.first.score == kept[0]
            assert row.first.sha256 == kept[1]
        # Every record kept for a student is a file handed in for that student.
        for name, kept in read_ledger(self.bundles, KEY).items():
            assert {r.sha256 for r in kept.attempts} <= self.handed_in[name]


def apply(course: Class, op: tuple, monkeypatch) -> None:
    kind, name = op[0], op[1]
    attempts = course.workspace(name) / "attempts.jsonl"
    if kind in ("grade", "single", "fail", "kill", "full"):
        course.grade(kind, name, op[2], monkeypatch)
    elif kind == "delete":
        attempts.unlink(missing_ok=True)
    elif kind == "swap" and op[2] != name:
        shutil.rmtree(course.workspace(name))
        shutil.copytree(course.workspace(op[2]), course.workspace(name))
        course.holds[name] = course.holds[op[2]]
    elif kind == "unswap":  # the student puts back their bundle as it was dealt
        shutil.rmtree(course.workspace(name))
        shutil.copytree(course.root / "dealt" / name, course.workspace(name))
        course.holds[name] = course.codes[name]
    elif kind == "copy" and op[2] != name:
        source = course.workspace(op[2]) / "attempts.jsonl"
        if source.exists():
            shutil.copyfile(source, attempts)
    elif kind == "old copy" and attempts.exists():  # an older attempts file put back
        lines = attempts.read_text().splitlines(keepends=True)
        attempts.write_text("".join(lines[:1]))
    elif kind == "scribble":  # any bytes in any file of the bundle
        target = course.workspace(name) / op[2]
        if target.parent.is_dir():
            target.write_bytes(op[3])
    elif kind == "show":
        when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        mark_shown(course.bundles, KEY, [name], when=when, what="reveal")
        course.shown.add(name)


@settings(max_examples=30)
@given(data=st.data())
def test_no_edit_of_a_bundle_changes_a_score_and_nothing_counts_after_the_answers(data):
    names = data.draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=4, unique=True))
    steps = data.draw(st.lists(operations(names), min_size=1, max_size=14))
    with tempfile.TemporaryDirectory() as root, pytest.MonkeyPatch.context() as monkeypatch:
        course = Class(Path(root), names)
        for step in steps:
            apply(course, step, monkeypatch)
            course.check()
