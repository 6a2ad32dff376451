"""Names that look alike are one student: one key (`scenarios.names.name_key`) for the roster,
the manifest and the graders, and a name mixing Latin with Cyrillic or Greek is refused."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose import classroom
from diagnose.scenario import ScenarioError
from grading.gradebook import Roster, Student, named_student
from scenarios.names import LOOKS_LATIN, mixed_scripts, name_key, script

LATIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáéíóúñÁÉÍÓÚÑçü"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЫЭЮЯ"
GREEK = "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"
LOOK_ALIKES = [chr(c) for c in LOOKS_LATIN]


def roster(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_one_key_folds_case_accents_width_and_look_alikes():
    assert name_key("Аna") == name_key("Ana") == name_key("ＡＮＡ") == name_key("Aná") == "ana"
    assert name_key("Νick") == "nick" and name_key("νick") == "vick"  # capital Nu, small nu


def test_every_look_alike_is_a_cyrillic_or_greek_letter_read_as_one_latin_letter():
    for char in LOOK_ALIKES:
        assert script(char) in ("CYRILLIC", "GREEK"), char
        latin = char.translate(LOOKS_LATIN)
        assert len(latin) == 1 and script(latin) == "LATIN", char


@given(st.text(LATIN, min_size=1, max_size=6), st.text(CYRILLIC + GREEK, min_size=1,
                                                       max_size=6), st.booleans())
def test_a_name_mixing_latin_with_cyrillic_or_greek_is_refused_naming_its_line(
        latin, other, first):
    name = latin + other if first else other + latin
    assert mixed_scripts(name)
    problem = classroom.check_name(unicodedata.normalize("NFC", name))
    assert problem is not None and "letters, which look alike" in problem


@given(st.text(LATIN + "0123456789-._", min_size=1, max_size=8))
def test_a_latin_name_with_look_alikes_swapped_in_is_the_same_student(name):
    swapped = "".join(next((c for c in LOOK_ALIKES if c.translate(LOOKS_LATIN) == ch), ch)
                      for ch in name)
    assert name_key(swapped) == name_key(name)
    single = "".join(c for c in swapped if script(c) != "LATIN")  # wholly look-alike letters
    if single and not mixed_scripts(single):
        assert name_key(single) == name_key(single.translate(LOOKS_LATIN))


def test_cyrillic_ana_and_latin_ana_are_refused_with_both_lines(tmp_path):
    with pytest.raises(ScenarioError) as caught:
        classroom.read_roster(roster(tmp_path, "Ana\nberta\n\u0410na\n"))
    assert str(caught.value).endswith(
        ":3: 'Аna' is not a safe directory name: it mixes Cyrillic and Latin letters, which "
        "look alike; write it in one alphabet")
    with pytest.raises(ScenarioError) as caught:  # wholly Cyrillic: one student with "Aoa"
        classroom.read_roster(roster(tmp_path, "Aoa\nberta\n\u0410\u043e\u0430\n"))
    assert str(caught.value).endswith(
        ":3: 'Аоа' is the same student as 'Aoa' (line 1); names must differ in more than "
        "case, accents, width or letters that look alike")


def test_a_file_named_with_look_alikes_is_placed_with_its_student(tmp_path):
    class_list = Roster([Student("ana", "AAAA-1111", tmp_path / "ana"),
                         Student("Joe", "BBBB-2222", tmp_path / "joe")])
    assert named_student(tmp_path / "\u0430n\u0430-diagnoses.md", class_list).name == "ana"
    assert named_student(tmp_path / "ＪＯＥ.md", class_list).name == "Joe"
    assert named_student(tmp_path / "Ј\u043ee.md", class_list).name == "Joe"
    # as the app names a level's file (levels.toml's suffix), in a level-2 bundle
    assert named_student(tmp_path / "Joe-diagnoses-level-2.md", class_list).name == "Joe"
    assert named_student(tmp_path / "ana" / "diagnoses-level-3.md", class_list).name == "ana"
    assert named_student(tmp_path / "Joe-level-7.md", class_list) is None
