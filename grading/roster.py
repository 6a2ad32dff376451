"""A class's students as the instructor's manifest lists them: `Student` (name, the code dealt,
where their bundle is) and `Roster`, found by name (`scenarios.names.same_student`) or by code.
Class grading (`gradebook`) and file placement (`collect`) share them; nothing here reads a
bundle."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from grading.diagnoses import GradeError
from grading.grade import code_key
from grading.layout import MANIFEST
from grading.manifest import ManifestRow
from scenarios.names import NameIndex


@dataclass(frozen=True)
class Student:
    name: str
    code: str  # the manifest's: what was dealt to them
    workspace: Path  # their bundle (the student's copy: compared, never read to decide)
    row: ManifestRow | None = None


class Roster(tuple[Student, ...]):
    """The students of a class, in manifest order, found by name key or by scenario code in
    constant time (a class of 1,000 is matched in linear time)."""

    by_name: NameIndex[Student]
    by_code: dict[str, Student]

    def __new__(cls, students: Iterable[Student]) -> Roster:
        roster = super().__new__(cls, students)
        roster.by_name = NameIndex((s.name, s) for s in roster)
        roster.by_code = {code_key(s.code): s for s in roster}
        return roster

    def named(self, name: str) -> Student | None:
        """The student `name` names (`scenarios.names.same_student`), else None; GradeError
        when it names two (a manifest dealt before the rule that tells them apart)."""
        found = self.by_name.find(name)
        if len(found) > 1:
            raise GradeError(f"{name!r} names {' and '.join(repr(s.name) for s in found)}, "
                             f"who look alike in {MANIFEST}; nothing recorded",
                             hint="grade it with --dir <bundles>/<student>/experiments/19-break-it")
        return found[0] if found else None

    def owner(self, code: str) -> Student | None:
        return self.by_code.get(code_key(code))
