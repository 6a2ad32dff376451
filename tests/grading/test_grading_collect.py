"""Collecting as LMSs deliver: Canvas's, Moodle's and Gradescope's download names, a browser's
` (1)`, a file placed two ways, and the refusal that names the student a title is nearest to."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from grading_testkit import make_workspace
from hypothesis import given
from hypothesis import strategies as st

from diagnose.cli import cli
from grading import DEFAULT_DIR, GradeError
from grading.collect import canvas_parts, moodle_parts, place, placed
from grading.gradebook import Roster, Student
from grading.seal import new_secret, write_key_file

NAMES = ("ana.garcia", "borja_diaz", "carmen", "david", "eva-mora", "Fran")


def roster_of(names, deal=Path("bundles")):
    return Roster(Student(n, f"C{i:03d}", deal / n / DEFAULT_DIR) for i, n in enumerate(names))


ROSTER = roster_of(NAMES)


@pytest.mark.parametrize(("name", "student"), [
    ("david-diagnoses (1).md", "david"),            # the issue's: a browser's second copy
    ("david_12345_67890_david-diagnoses.md", "david"),  # the Canvas-style name
    # Canvas: sortable name lower-cased, non-word characters dropped; LATE; the file id
    ("garcíaana_340934_208490284_diagnoses.md", "ana.garcia"),
    ("garciaana_LATE_340934_208490284_ana.garcia-diagnoses.md", "ana.garcia"),
    ("diazborja_1_2_Borja's work (2).md", "borja_diaz"),
    ("anon_Xy12Z_208490284_carmen-diagnoses.md", "carmen"),  # anonymous: the original name
    # Moodle: flat, and one folder per student (its default since 3.1)
    ("Eva Mora_774411_assignsubmission_file_diagnoses.md", "eva-mora"),
    ("Mora Eva_774411_assignsubmission_file_/eva-mora-diagnoses.md", "eva-mora"),
    ("Fran_12_assignsubmission_file_/diagnoses.md", "Fran"),
    ("Participant_9912_assignsubmission_file_/fran-diagnoses.md", "Fran"),  # blind marking
    ("submissions/carmen/diagnoses.md", "carmen"),
])
def test_lms_download_names_place_the_file(name, student):
    assert placed(Path("downloads") / name, ROSTER).name == student
    assert place(Path("downloads") / name, ROSTER, None).name == student


def test_the_download_patterns_split_as_the_lms_source_writes_them():
    assert canvas_parts("smithbob_340934_208490284_BobsWork.zip") == ("smithbob", "BobsWork.zip")
    assert canvas_parts("smithbob_LATE_1_2_a_b.md") == ("smithbob", "a_b.md")
    assert canvas_parts("ana-diagnoses.md") is None
    assert moodle_parts("Ana García_12_assignsubmission_file_x_y.md") == ("Ana García", "x_y.md")
    assert moodle_parts("Ana García_12_assignsubmission_file_") == ("Ana García", "")
    assert moodle_parts("Ana_x_assignsubmission_file_a.md") is None


def test_a_file_placed_two_ways_is_refused_naming_both():
    with pytest.raises(GradeError) as err:
        place(Path("garciaana_1_2_david-diagnoses.md"), ROSTER, None)
    assert str(err.value) == (
        "garciaana_1_2_david-diagnoses.md: placed on two students (its Canvas name says "
        "ana.garcia; the name it was handed in under says david); nothing recorded (rename it "
        "after the one student it belongs to)")
    assert placed(Path("garciaana_1_2_david-diagnoses.md"), ROSTER) is None


def test_a_file_nothing_places_names_the_student_its_title_is_nearest_to():
    with pytest.raises(GradeError) as err:
        place(Path("my work.md"), ROSTER, "Davd")
    assert str(err.value) == (
        "my work.md: its name matches no student of the roster; nothing recorded (its title "
        "names 'Davd', nearest to david: if it is theirs, rename it david-diagnoses.md)")
    with pytest.raises(GradeError, match=r"as the manifest spells them, <student>-diagnoses"):
        place(Path("my work.md"), ROSTER, None)
    with pytest.raises(GradeError, match="nearest to ana.garcia"):
        place(Path("x.md"), ROSTER, "García, Ana")


def gradescope_export(root: Path, submitters: dict[str, list[tuple[str, str]]]) -> None:
    lines = []
    for sub, people in submitters.items():
        lines += [f"{sub}:", "  :submitters:"]
        for name, email in people:
            lines += [f"  - :name: {name}", "    :sid: '1234'", f"    :email: {email}"]
        lines += ["  :created_at: 2026-12-01 10:00:00.000000000 +00:00", "  :score: 3.0"]
        (root / sub).mkdir(parents=True)
        (root / sub / "diagnoses.md").write_text("## 01\nbad init\n")
    (root / "submission_metadata.yml").write_text("\n".join(lines) + "\n")


def test_gradescope_export_places_by_the_manifest_email_then_the_name(tmp_path):
    deal = tmp_path / "bundles"
    deal.mkdir()
    (deal / "manifest.csv").write_text("student,code,email\nana.garcia,C000,Ana@Uni.edu\n"
                                       "david,C003,david@uni.edu\n")
    roster = roster_of(NAMES, deal)
    export = tmp_path / "export"
    gradescope_export(export, {"submission_11": [("A. G.", "ana@uni.edu")],
                               "submission_12": [("David", "d@home.org")],
                               "submission_13": [("David", "david@uni.edu"),
                                                 ("Carmen", "c@x.org")]})
    assert placed(export / "submission_11" / "diagnoses.md", roster).name == "ana.garcia"
    assert placed(export / "submission_12" / "diagnoses.md", roster).name == "david"
    with pytest.raises(GradeError, match=r"placed on two students \(Gradescope's export says "
                                         r"david; Gradescope's export says carmen\)"):
        place(export / "submission_13" / "diagnoses.md", roster, None)


# --- generated names ---------------------------------------------------------------------------

LETTERS = st.sampled_from("abcdeéfghiíjklmnñoóprstuúvyzç")
WORD = st.text(LETTERS, min_size=2, max_size=8)


def canvas_name(words: list[str]) -> str:
    """What Canvas writes: the sortable name `Last, First Middle`, lower-cased, word chars only."""
    sortable = f"{words[-1]}, {' '.join(words[:-1])}" if len(words) > 1 else words[0]
    return "".join(c for c in sortable.lower() if c.isalnum() or c == "_")


@given(st.lists(st.lists(WORD, min_size=1, max_size=3), min_size=1, max_size=6),
       st.sampled_from(["_", ".", "-"]), st.booleans(), st.data())
def test_generated_rosters_place_canvas_and_moodle_names_or_refuse_naming_both(
        people, joint, late, data):
    folders = list(dict.fromkeys(joint.join(w) for w in people))
    from scenarios.names import name_key

    if len({name_key(f) for f in folders}) < len(folders):
        return  # a roster refuses two names with one key
    roster = roster_of(folders)
    who = data.draw(st.integers(0, len(folders) - 1))
    words = folders[who].split(joint)
    typed = [unicodedata.normalize("NFD", w.capitalize()) for w in words]  # as the LMS has it
    names = [f"{canvas_name(typed)}{'_LATE' if late else ''}_31_4159_work.md",
             f"{' '.join(typed)}_2718_assignsubmission_file_work.md",
             f"{' '.join(typed)}_2718_assignsubmission_file_/work (3).md"]
    for name in names:
        try:
            assert place(Path(name), roster, None).name == folders[who]
        except GradeError as err:  # only when another student's words are the same words
            assert "placed on two students" in str(err), name
            assert folders[who] in str(err)


# --- the CLI ---------------------------------------------------------------------------------

def test_class_grading_places_canvas_and_moodle_downloads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from grading.dealt import assignment
    from scenarios.levels import level

    key = new_secret()
    write_key_file(Path("course.key"), key)
    truth = assignment(key, "AAAA-0000", level(1))  # as the deal derives it, for both codes
    for i, name in enumerate(("ana.garcia", "david")):
        make_workspace(Path("bundles", name) / DEFAULT_DIR, key, f"AAAA-000{i}",
                       assignment(key, f"AAAA-000{i}", level(1)), "instructor")
    Path("bundles/manifest.csv").write_text("student,code\nana.garcia,AAAA-0000\n"
                                            "david,AAAA-0001\n")
    right = "".join(f"## {i}\nDiagnosis: {s}\n" for i, s in truth.items())
    Path("garciaana_LATE_55_66_diagnoses.md").write_text(right)
    Path("David Lee_9_assignsubmission_file_").mkdir()  # Moodle's folder: its name is not his
    Path("David Lee_9_assignsubmission_file_/notes.md").write_text("# Diagnoses — David\n" + right)
    result = CliRunner().invoke(cli, [
        "grade", "--key", "course.key", "--bundles", "bundles",
        "garciaana_LATE_55_66_diagnoses.md", "David Lee_9_assignsubmission_file_"],
        catch_exceptions=False)  # Moodle's folder stands for the files in it
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("ana.garcia  3/3  garciaana_LATE_55_66_diagnoses.md  (")
    assert lines[1] == (
        "?           error  David Lee_9_assignsubmission_file_/notes.md: its name matches no "
        "student of the roster; nothing recorded (its title names 'David', nearest to david: "
        "if it is theirs, rename it david-diagnoses.md)")
    assert lines[-1] == "Error: 1 of 2 files could not be graded"


@given(st.lists(st.text(st.sampled_from("abcdefghijklmnoprstuvyz"), min_size=2, max_size=7),
                min_size=2, max_size=5, unique=True), st.data())
def test_an_lms_name_and_a_saved_name_that_disagree_are_always_refused(names, data):
    from scenarios.names import name_key

    if len({name_key(n) for n in names}) < len(names):
        return
    roster = roster_of(names)
    a, b = data.draw(st.permutations(names))[:2]
    for path in (f"{a}_12_34_{b}-diagnoses.md", f"{a}_12_assignsubmission_file_{b}.md",
                 f"{a}_12_assignsubmission_file_/{b}-diagnoses (2).md"):
        with pytest.raises(GradeError, match="placed on two students") as err:
            place(Path(path), roster, None)
        assert f"says {a}" in str(err.value) and f"says {b}" in str(err.value)
        assert placed(Path(path), roster) is None


def test_lms_submission_folders_stand_for_the_files_in_them(tmp_path):
    from grading.collect import expand

    moodle = tmp_path / "Ana García_12_assignsubmission_file_"
    gradescope = tmp_path / "submission_77" / "sub"
    plain = tmp_path / "notes"
    for folder in (moodle, gradescope, plain):
        folder.mkdir(parents=True)
    (moodle / "b.md").write_text("x")
    (moodle / "a.md").write_text("x")
    (gradescope / "d.md").write_text("x")
    loose = tmp_path / "c.md"
    loose.write_text("x")
    assert expand([moodle, loose, tmp_path / "submission_77", plain]) == [
        moodle / "a.md", moodle / "b.md", loose, gradescope / "d.md", plain]


@given(st.lists(st.sampled_from([
    "submission_1:", "submission_2:", "  :submitters:", "  - :name: Ana", "    :email: a@x.org",
    "  - :email: b@x.org", "    :name: 'B'", "  :score: 3.0", "", "- :name:", ":email:",
    "  :created_at: 2026-12-01", "garbage: [", "\t:name: x"]), max_size=30))
def test_gradescope_metadata_of_any_shape_reads_as_a_list_of_people(lines):
    import tempfile

    from grading.collect import submitters

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "submission_metadata.yml"
        path.write_text("\n".join(lines))
        people = submitters(path, "submission_1")
    assert all(isinstance(n, str) and isinstance(e, str) for n, e in people)
