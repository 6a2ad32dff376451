"""Whose submission a collected file is, from the names LMSs give the files they hand back.

Each way of reading a path is a documented pattern, and says which student it names:

- **The name the student saved** (the game's own): `<student>-diagnoses.md` (or `_`, ` `, `.`
  before `diagnoses`, `diagnosis`, `diagnosticos`), `<student>.md`, `<student>/diagnoses.md`,
  with a level's suffix (`ana-diagnoses-level-2.md`). Names compare by
  `scenarios.names.same_student`.
- **A browser's copy**: Chrome, Edge and Firefox save a repeated download as `name (1).md`;
  the ` (N)` is dropped before anything else is read.
- **Canvas** ("Download Submissions", canvas-lms `lib/content_zipper.rb`: `get_filename`,
  `add_upload_submission`): `<sortable name>[_LATE]_<user id>_<file id>_<original name>`, the
  sortable name (`García, Ana`) lower-cased with every character but letters, digits and `_`
  dropped (`garcíaana`); anonymous grading writes `anon_<id>` for the name. The name places the
  file when it is a roster name's words in some order (`Ana García` -> `anagarcía`,
  `garcíaana`); the original name at the end is read as the student saved it.
- **Moodle** ("Download all submissions", mod/assign `locallib.php` `download_submissions`):
  `<Full Name>_<participant id>_assignsubmission_file_<original name>`, or, downloaded in
  folders (the default since Moodle 3.1), a folder `<Full Name>_<id>_assignsubmission_file_`
  holding the original files; a blind-marked assignment writes `Participant` for the name.
- **Gradescope's "Export Submissions"**: a folder `submission_<id>/` per submission and, at the
  export's root, `submission_metadata.yml` listing each submission's `:submitters:` (`:name:`,
  `:email:`); a submitter places the file by email (the manifest's) or by name.

A submission folder of these downloads given where a file is expected stands for the files in
it (`expand`). A file that one or more of these place on one student is theirs. A file they
place on two students (a Canvas name that says Ana around an original name that says Luis; a
group of two) is refused naming both, and so is a file nothing places: the refusal names the
student its `# Diagnoses — Name` title is nearest to, so the instructor can rename it; the
title alone never places a file (it is the student's own words; it is only cross-checked, in
`gradebook.match`).

stdlib only, like the rest of `grading`. Not here: what a file holds (`diagnoses.py`), the roster
(`grading.roster.Roster`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from grading.diagnoses import GradeError
from grading.layout import DEFAULT_DIR, printable
from grading.manifest import read_manifest
from grading.roster import Roster, Student
from scenarios.levels import all_levels
from scenarios.names import fold, name_key, name_keys

NAME_SUFFIXES = ("diagnoses", "diagnosis", "diagnosticos")  # keyed, "-"/"_" before them
BROWSER_COPY = re.compile(r" \(\d{1,4}\)$")  # `name (1)`: a repeated download
MOODLE_MARK = "_assignsubmission_"
MOODLE_BLIND = "participant"  # Moodle's word for a blind-marked student (English sites)
CANVAS_LATE = "LATE"
CANVAS_ANONYMOUS = "anon"
GRADESCOPE_FOLDER = re.compile(r"^submission_\d{1,12}$")
GRADESCOPE_METADATA = "submission_metadata.yml"
METADATA_MAX = 8 * 1024 * 1024  # a class of 10,000 submissions with their metadata
NEAREST_CUTOFF = 0.6  # difflib's ratio for "the student a title is nearest to"


@dataclass(frozen=True)
class Claim:
    """One way of reading a path, and the student it names."""

    how: str  # "its name", "its Canvas name", ...
    student: Student


def as_typed(name: str) -> str:
    """A file name as its author typed it: bytes that are not UTF-8 (held as surrogates) read
    as Windows-1252, the usual other encoding of a name in a zip or on a USB stick, so
    `\\xc1na.md` still names Ána; a name that is UTF-8 comes back as is."""
    if printable(name) == name:
        return name
    try:
        return name.encode("utf-8", "surrogateescape").decode("cp1252", "replace")
    except UnicodeEncodeError:
        return name


def without_copy_mark(name: str) -> str:
    """`ana-diagnoses (1).md` -> `ana-diagnoses.md`: a browser's mark of a repeated download."""
    path = Path(name)
    return BROWSER_COPY.sub("", path.stem) + path.suffix if path.suffix else \
        BROWSER_COPY.sub("", name)


def _without(text: str, suffix: str) -> str:
    """`text` less `suffix`, compared without case (`-Diagnoses`, `-LEVEL-2`)."""
    tail = text[len(text) - len(suffix):]
    return text[:len(text) - len(suffix)] if tail.casefold() == suffix.casefold() else text


def saved_name(file: Path, roster: Roster) -> Student | None:
    """The student a file's name as the game saves it names (or, for `<name>/diagnoses.md`,
    its folder's); a name the app wrote at a level with a suffix (`ana-diagnoses-level-2.md`,
    `Level.named`) too."""
    file = Path(as_typed(str(file)))
    file = file.with_name(without_copy_mark(file.name))
    whole = fold(file.stem)
    stems = [whole, *(_without(whole, fold(level.suffix)) for level in all_levels()
                      if level.suffix and _without(whole, fold(level.suffix)) != whole)]
    for stem in stems:
        for suffix in NAME_SUFFIXES:
            for joint in ("-", "_", " ", "."):
                stem = _without(stem, joint + suffix)
        if stem.casefold() in NAME_SUFFIXES or not stem:  # "borja/diagnoses.md"
            stem = file.parent.name
        student = roster.named(stem)
        if student is not None:
            return student
    return None


def compacts(name: str) -> tuple[str, ...]:
    """A name as Canvas and Moodle folders reduce it: each of its keys
    (`scenarios.names.name_keys`, the ones `same_student` compares), letters and digits only."""
    return tuple(dict.fromkeys("".join(c for c in key if c.isalnum())
                               for key in name_keys(name)))


def compact(name: str) -> str:
    """A name's first compacted key (`compacts`), for the nearest-name hint."""
    return compacts(name)[0]


NAME_JOINTS = re.compile(r"[\s,._-]+")  # between the words of a name: `ana.garcia`, `García, Ana`


def word_orders(name: str) -> set[str]:
    """`Ana María García` (or `ana_maria.garcia`) -> its words rotated, compacted:
    `anamariagarcia`, `mariagarciaana`, `garciaanamaria` (a sortable name puts the surname
    first, wherever the given names end)."""
    words = [w for w in NAME_JOINTS.split(name) if w] or [name]
    return {key for k in range(len(words)) for key in compacts(" ".join(words[k:] + words[:k]))}


class People:
    """The roster by every order of each name's words, compacted: Canvas's and Moodle's names."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self.by_words: dict[str, list[Student]] = {}
        for student in roster:
            for key in word_orders(student.name):
                self.by_words.setdefault(key, []).append(student)

    def named(self, name: str) -> list[Student]:
        """Every student `name` may be: the one it names as typed, and each whose words, in
        some order, it is (two when `Ana Lee` and `Lee Ana` are both on the roster)."""
        exact = self.roster.named(name)
        found = [exact] if exact is not None else []
        for key in compacts(name):
            found += [s for s in self.by_words.get(key, []) if s not in found]
        return found


def canvas_parts(name: str) -> tuple[str | None, str] | None:
    """(the sortable name, or None when anonymous; the original name) of a Canvas download's
    file name, or None when it is not one."""
    parts = name.split("_")
    anonymous = parts[1:] if parts[0] == CANVAS_LATE else parts  # `[LATE_]anon_<id>_...`
    if anonymous[0] == CANVAS_ANONYMOUS and len(anonymous) > 3 and _number(anonymous[2]):
        return None, "_".join(anonymous[3:])
    for i in range(1, len(parts) - 2):
        if _number(parts[i]) and _number(parts[i + 1]):
            who = parts[:i - 1] if parts[i - 1] == CANVAS_LATE else parts[:i]
            original = "_".join(parts[i + 2:])
            return ("_".join(who), original) if who and original else None
    return None


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def lms_id(file_name: str) -> tuple[str, str] | None:
    """("canvas", the Canvas user ID) or ("moodle", the participant ID) a download's file name
    carries, or None: what an LMS gradebook import matches a student by."""
    name = without_copy_mark(Path(file_name).name)
    parts = name.split("_")
    canvas = canvas_parts(name)
    if canvas is not None and canvas[0] is not None:
        number = next(i for i in range(1, len(parts)) if _number(parts[i]))
        return "canvas", parts[number]
    moodle = moodle_parts(name)
    if moodle is not None:
        return "moodle", name.partition(MOODLE_MARK)[0].rpartition("_")[2]
    return None


def moodle_parts(name: str) -> tuple[str, str] | None:
    """(the full name, the original name: empty for a folder) of a Moodle download's file or
    folder name, or None when it is not one."""
    head, mark, tail = name.partition(MOODLE_MARK)
    if not mark:
        return None
    who, _, participant = head.rpartition("_")
    if not who or not _number(participant):
        return None
    _plugin, _, original = tail.partition("_")
    return who, original


def gradescope_submitters(file: Path) -> list[tuple[str, str]] | None:
    """The (name, email) of each submitter of a file in Gradescope's export
    (`submission_<id>/...` below a `submission_metadata.yml`), or None when it is not in one."""
    for folder in Path(file).parents:
        if GRADESCOPE_FOLDER.match(folder.name):
            metadata = folder.parent / GRADESCOPE_METADATA
            if metadata.is_file():
                return submitters(metadata, folder.name)
            return None
    return None


def submitters(metadata: Path, submission: str) -> list[tuple[str, str]]:
    """The submitters `submission_metadata.yml` lists for `submission`: read line by line, the
    shape Gradescope writes (a top-level `submission_<id>:` key, `- :name:` and `:email:` under
    its `:submitters:`), not YAML at large (the grader installs no YAML parser)."""
    from scenarios.files import read_small_text

    text = read_small_text(metadata, "Gradescope's submission metadata", METADATA_MAX,
                           error=GradeError)
    people: list[dict[str, str]] = []
    inside = among = False
    for line in text.splitlines():
        if line and not line[0].isspace():
            inside = line.rstrip().rstrip(":") == submission
            among = False
            continue
        if not inside:
            continue
        field = line.strip().removeprefix("- ")
        if field.startswith(":submitters:"):
            among = True
        elif among and field.startswith((":name:", ":email:")):
            key, _, value = field.partition(": ")
            if line.lstrip().startswith("- ") or not people:
                people.append({})
            people[-1][key.strip(":")] = value.strip().strip("'\"")
        elif among and not line.startswith("  " * 2) and field.startswith(":"):
            among = False  # the next field of the submission
    return [(p.get("name", ""), p.get("email", "")) for p in people]


def claims(file: Path, roster: Roster) -> list[Claim]:
    """Every way `file`'s path places it, with the student each names."""
    file = Path(as_typed(str(file)))
    people = People(roster)
    found: list[Claim] = []

    def add(how: str, students: Iterable[Student]) -> None:
        found.extend(Claim(how, s) for s in students)

    name = without_copy_mark(file.name)
    saved = saved_name(file, roster)
    if saved is not None:
        add("its name", [saved])
    canvas = canvas_parts(name)
    if canvas is not None:
        who, original = canvas
        if who is not None:
            add("its Canvas name", people.named(who))
        add("the name it was handed in under", _as_saved(file.parent / original, roster))
    moodle = moodle_parts(name) or moodle_parts(file.parent.name)
    if moodle is not None:
        who, original = moodle
        if name_key(who) != MOODLE_BLIND:
            add("its Moodle name", people.named(who))
        if original and moodle_parts(name):
            add("the name it was handed in under", _as_saved(file.parent / original, roster))
    listed = gradescope_submitters(file)
    if listed is not None:
        emails = manifest_emails(roster)
        for person, email in listed:
            student = emails.get(email.casefold()) if email else None
            add("Gradescope's export", [student] if student else people.named(person))
    return found


def lms_folder(folder: Path) -> bool:
    """Whether `folder` is one submission's folder of an LMS download: Moodle's
    `<Full Name>_<id>_assignsubmission_<plugin>_`, or Gradescope's export `submission_<id>`."""
    return moodle_parts(folder.name) is not None or bool(GRADESCOPE_FOLDER.match(folder.name))


def expand(paths: Iterable[Path]) -> list[Path]:
    """`paths` with each LMS submission folder (`lms_folder`) replaced by the files in it, in
    name order, so `grade ... downloads/*` takes Moodle's and Gradescope's folders as they are;
    any other path is left as given (a folder is then refused by the grading, in one line)."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and not path.is_symlink() and lms_folder(path):
            out += sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
        else:
            out.append(path)
    return out


def _as_saved(file: Path, roster: Roster) -> list[Student]:
    student = saved_name(file, roster)
    return [] if student is None else [student]


def placed(file: Path, roster: Roster) -> Student | None:
    """The one student `file`'s path places it on, or None (none, or two)."""
    students = {id(c.student): c.student for c in claims(file, roster)}
    return next(iter(students.values())) if len(students) == 1 else None


def place(file: Path, roster: Roster, title: str | None) -> Student:
    """The student `file` belongs to; GradeError, nothing recorded, when its path places it on
    nobody (naming the student its title is nearest to) or on two students."""
    found = claims(file, roster)
    students = {id(c.student): c.student for c in found}
    if len(students) > 1:
        ways = "; ".join(dict.fromkeys(f"{c.how} says {c.student.name}" for c in found))
        raise GradeError(f"{file}: placed on two students ({ways}); nothing recorded",
                         hint="rename it after the one student it belongs to")
    if students:
        return next(iter(students.values()))
    nearest = nearest_student(title, roster) if title else None
    if nearest is not None:
        raise GradeError(f"{file}: its name matches no student of the roster; nothing recorded",
                         hint=f"its title names {title!r}, nearest to {nearest.name}: if it is "
                              f"theirs, rename it {nearest.name}-diagnoses.md")
    raise GradeError(f"{file}: its name matches no student of the roster; nothing recorded",
                     hint="name it after the student as the manifest spells them, "
                          "<student>-diagnoses.md")


def nearest_student(title: str, roster: Roster) -> Student | None:
    """The student a file's title names, or is nearest to (same words in another order, or a
    close spelling); None when no name is close."""
    exact = People(roster).named(title)
    if len(exact) == 1:
        return exact[0]
    names = {compact(s.name): s for s in roster}
    close = difflib.get_close_matches(compact(title), list(names), n=1, cutoff=NEAREST_CUTOFF)
    return names[close[0]] if close else None


def manifest_emails(roster: Roster) -> dict[str, Student]:
    """The manifest's email of each student of `roster`, case-folded: the manifest of the deal
    folder their bundles are in (`<deal>/<student>/experiments/19-break-it`)."""
    by_name = {s.name: s for s in roster}
    if not by_name:
        return {}
    deal = Path(next(iter(by_name.values())).workspace).parents[len(DEFAULT_DIR.parts)]
    return {row.email.casefold(): by_name[row.student] for row in read_manifest(deal)
            if row.email and row.student in by_name}
