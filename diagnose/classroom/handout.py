"""`diagnose handout`: what to give each student of a dealt class, and what to keep.

One zip per student, `OUT/<student>.zip`, holding one folder `<student>/`:

- `experiments/19-break-it/`: their bundle, exactly the files a student needs to play it
  (`HANDED_OUT`: `scenario.json`, the sealed key, each run's metrics and dashboard) and
  nothing else: no attempt records, no reveal marker, no drafts, whatever a grading or a
  previous holder left beside them, so a bundle handed out again after grading carries nothing
  the next student could use;
- the wheel of this diagnose (`diagnose.classroom.wheel`), so they install the very version that
  dealt;
- `START.md`, one page in their language (their manifest row's `lang`, else the deal's):
  install, play, where to hand in, what counts.

Beside the zips, `OUT/README.md` is the instructor's checklist: what to give whom, and what stays
private and why (`PRIVATE`). Nothing is recorded and no answer is opened: no key is needed.

Not here: dealing (`diagnose.classroom.deal`), collecting and grading (`grading.collect`,
`diagnose.classroom.grading`).
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from diagnose import __version__
from diagnose.classroom.wheel import _add, wheel_name, write_wheel  # one way to write a zip entry
from grading.dealt import deal_lang
from grading.grade import read_scenario
from grading.gradebook import dealt_students
from grading.layout import DEFAULT_DIR, KEY_FILE, SCENARIO_FILE
from grading.manifest import read_manifest
from scenarios.errors import UserError
from scenarios.files import atomic_output, atomic_write
from scenarios.words import N_, say

RUN_FILES = ("metrics.jsonl", "dashboard.html")
START_SHEET = "START.md"
CHECKLIST = "README.md"


class HandoutError(UserError):
    """A handout that cannot be made; one line saying why."""


def handed_out(workspace: Path) -> tuple[list[Path], list[Path]]:
    """(the files of a bundle a student is given, the files left out), relative to it: the
    scenario, its sealed key, and each run's metrics and dashboard (the runs `scenario.json`
    names, and the reference); HandoutError when one of those is missing."""
    scenario = read_scenario(workspace)
    wanted = [Path(SCENARIO_FILE), Path(KEY_FILE)]
    wanted += [Path(run) / name for run in (*scenario.ids, "reference") for name in RUN_FILES]
    for path in wanted:
        if not (workspace / path).is_file():
            raise HandoutError(f"{workspace / path}: missing; deal that student again (the "
                               "same command as the deal) before handing out")
    everything = sorted(p.relative_to(workspace) for p in workspace.rglob("*") if p.is_file())
    return wanted, [p for p in everything if p not in wanted]


# What stays with the instructor, and why (the checklist beside the zips).
PRIVATE = (
    (N_("your key (course.key)"),
     N_("it opens every student's answers and seals their attempt records")),
    (N_("bundles/.attempts-ledger.json"),
     N_("the truth about every attempt: a bundle's copy is checked against it")),
    (N_("bundles/manifest.csv and deal-settings.json"),
     N_("every student's email and scenario code; a deal cannot resume without them")),
    (N_("the gradebook CSV"),
     N_("every student's answers and the truth of each scenario, handed in or not: import "
        "the LMS file (--gradebook-format) into your LMS instead")),
    (N_("answer-key.csv (diagnose answers)"), N_("the truth of every student's scenario")),
    (N_("autograder.zip"), N_("it holds a key that opens each student's scenario")),
    (N_("hand-back/ (diagnose reveal --key)"),
     N_("each student's solutions: hand each one only their own folder, once you release "
        "the answers")),
)


def start_sheet(student: str, code: str, level: int, lang: str, hand_in: str) -> str:
    """The one page a student reads first, in `lang`."""
    wheel = wheel_name()
    folder = DEFAULT_DIR.as_posix()
    return "\n".join([
        "# " + say(lang, "diagnose — start here, {student}", student=student), "",
        say(lang, "Your scenario: {code} (level {level}). It is yours alone: every classmate "
                  "has another.", code=code, level=level), "",
        "## " + say(lang, "1. Install (once; Python 3.11 or later)"), "",
        say(lang, "Unzip {zip} and open a terminal in the folder it makes, {student}/:",
            zip=f"{student}.zip", student=student), "",
        "```", f"python3 -m venv .venv && .venv/bin/pip install {wheel}",
        f"py -m venv .venv; .venv\\Scripts\\pip install {wheel}    # Windows", "```", "",
        "## " + say(lang, "2. Play"), "",
        "```", f".venv/bin/diagnose play --dir {folder} --name {student} --lang {lang}", "```", "",
        say(lang, "Read each run's six panels, diagnose 01 02 03 (d), and save with Ctrl+S: "
                  "the game writes {file} next to experiments/. ? explains every panel.",
            file=f"{student}-diagnoses.md"), "",
        "## " + say(lang, "3. Hand in"), "",
        say(lang, "Hand in {file} as the game wrote it: {where}. Keep its name and its first "
                  "lines (your name and your scenario's code): they tell your instructor it is "
                  "yours.", file=f"{student}-diagnoses.md", where=hand_in), "",
        "## " + say(lang, "4. What counts"), "",
        say(lang, "Your answers are sealed with your instructor's key: grading here is not "
                  "possible. Until your instructor hands back the "
                  "solutions, you may hand in a corrected file: the last one handed in before "
                  "then counts. A file handed in after the solutions were shown never counts."),
        "", f"diagnose {__version__}", ""])


def checklist(students: Sequence[str], lang: str) -> str:
    """The instructor's README beside the zips."""
    lines = ["# " + say(lang, "Handout: what to give, what to keep"), "",
             say(lang, "Give each student their own zip, and nothing else:"), ""]
    lines += [f"- [ ] `{name}.zip` → {name}" for name in students]
    lines += ["", say(lang, "Keep private, off shared drives and out of the LMS:"), ""]
    lines += [f"- [ ] {say(lang, what)}: {say(lang, why)}" for what, why in PRIVATE]
    lines += ["", say(lang, "Each zip holds the student's bundle (the scenario, its sealed "
                            "answers and the runs), the wheel to install this version, and "
                            "START.md in their language. No attempt record, reveal or draft "
                            "is ever packed."), ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Handout:
    zips: dict[str, Path]        # student -> their zip
    langs: dict[str, str]
    left_out: dict[str, list[str]]  # student -> files of their bundle not handed out
    checklist: Path


def write_handout(bundles: Path, out: Path, names: Sequence[str] = (), *,
                  hand_in: str | None = None, lang: str | None = None) -> Handout:
    """A zip per student named (every student of the manifest when none) and the checklist.
    `lang`: for students whose manifest row names none (default: the deal's); `hand_in`: where
    to hand in, in the instructor's words (default: "where your instructor says")."""
    from diagnose.classroom.answers import chosen, student_langs

    bundles, out = Path(bundles), Path(out)
    students = chosen(bundles, names)
    listed = {row.student: row for row in read_manifest(bundles)}
    roster = {s.name: s for s in dealt_students(bundles)}
    default = lang or deal_lang(bundles)
    speaks = student_langs(bundles, lang)
    plans = {}
    for name in students:
        workspace = roster[name].workspace
        files, left = handed_out(workspace)
        scenario = read_scenario(workspace)
        row = listed.get(name)
        plans[name] = (workspace, files, left, speaks.get(name, default),
                       row.code if row and row.code else scenario.code, scenario.level)
    if out.exists() and not out.is_dir():
        raise HandoutError(f"{out}: not a folder; --out is the folder to write the zips in")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise HandoutError(f"{out}: cannot be made ({err.strerror or err})") from None
    with tempfile.TemporaryDirectory() as scratch:
        wheel = write_wheel(Path(scratch)).read_bytes()
        zips, langs, left_out = {}, {}, {}
        for name, (workspace, files, left, student_lang, code, level) in plans.items():
            sheet = start_sheet(name, code, level, student_lang,
                                hand_in or say(student_lang, "where your instructor says"))
            target = out / f"{name}.zip"
            with atomic_output(target, error=HandoutError) as partial, \
                    zipfile.ZipFile(partial, "w") as archive:
                for path in files:
                    _add(archive, f"{name}/{(DEFAULT_DIR / path).as_posix()}",
                         (workspace / path).read_bytes())
                _add(archive, f"{name}/{wheel_name()}", wheel)
                _add(archive, f"{name}/{START_SHEET}", sheet.encode("utf-8"))
            zips[name], langs[name] = target, student_lang
            left_out[name] = [p.as_posix() for p in left]
    readme = atomic_write(out / CHECKLIST, checklist(list(zips), default), error=HandoutError)
    return Handout(zips, langs, left_out, readme)
