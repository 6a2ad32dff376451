"""The instructor's week on a real deal (one training step): the answer key, the reveal handed
back, the handout, the class report and the LMS gradebooks, each through the CLI."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli

ROSTER = ("name,email,level,lang\nana.garcia,ana@uni.edu,1,\nborja,borja@uni.edu,1,\n"
          "carmen,carmen@uni.edu,2,es\ndavid,david@uni.edu,1,\n")
WS = Path("experiments") / "19-break-it"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """A class of four, dealt once for the module: each test works on its own copy."""
    root = tmp_path_factory.mktemp("deal")
    key = root / "course.key"
    assert run("keygen", "--out", str(key)).exit_code == 0
    (root / "roster.csv").write_text(ROSTER)
    result = run("deal", "--key", str(key), "--out", str(root / "bundles"), "--roster",
                 str(root / "roster.csv"), "--steps", "1")
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def course(dealt, tmp_path, monkeypatch):
    shutil.copy(dealt / "course.key", tmp_path / "course.key")
    shutil.copytree(dealt / "bundles", tmp_path / "bundles")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def truths():
    import grading
    from grading.grade import open_key
    from grading.seal import read_key_file

    secret = read_key_file(Path("course.key"))
    return {s: open_key(grading.read_scenario(Path("bundles", s) / WS), secret)
            for s in ("ana.garcia", "borja", "carmen", "david")}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


# --- the answer key and the reveal handed back -------------------------------------------------

def test_answers_writes_the_key_and_records_nothing(course):
    before = sorted(p.relative_to("bundles") for p in Path("bundles").rglob("*"))
    result = run("answers", "--key", "course.key", "--bundles", "bundles", "--out", "key.csv")
    assert result.exit_code == 0
    assert result.output == ("Wrote key.csv: the answers of 4 students. Keep it private; "
                             "nothing was recorded.\n")
    rows = read_csv("key.csv")
    truth = truths()
    assert [(r["student"], r["email"], r["level"], r["lang"]) for r in rows] == [
        ("ana.garcia", "ana@uni.edu", "1", "en"), ("borja", "borja@uni.edu", "1", "en"),
        ("carmen", "carmen@uni.edu", "2", "es"), ("david", "david@uni.edu", "1", "en")]
    assert all({i: r[i] for i in ("01", "02", "03")} == truth[r["student"]] for r in rows)
    assert sorted(p.relative_to("bundles") for p in Path("bundles").rglob("*")) == before


def test_reveal_with_the_key_hands_back_solutions_in_each_language_and_records_it(course):
    from diagnose.classroom.answers import SHOWN_BY_REVEAL
    from grading.ledger import read_ledger
    from grading.seal import read_key_file

    result = run("reveal", "--key", "course.key", "--bundles", "bundles", "--out", "back",
                 "carmen", "DAVID")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"carmen: {Path('back/carmen/03-three-failures-ref-level-2.md')} (es)",
        f"david: {Path('back/david/03-three-failures-ref.md')} (en)",
        "Revealed to 2 students; the ledger records that their answers were shown (no later "
        "attempt of theirs counts). Hand back back/<student>/."]
    spanish = Path("back/carmen/03-three-failures-ref-level-2.md").read_text()
    assert spanish.startswith("# Soluciones — escenario ")
    assert all(f"(`{slug}`)" in spanish for slug in truths()["carmen"].values())
    kept = read_ledger(Path("bundles"), read_key_file(Path("course.key")))
    assert set(kept) == {"carmen", "david"}
    assert kept["carmen"].shown_what == (SHOWN_BY_REVEAL,)
    assert not (Path("bundles/carmen") / WS / "reveal.json").exists()  # the bundle untouched


@pytest.mark.parametrize(("args", "code", "error"), [
    (("reveal", "--key", "course.key", "ana.garcia"), 2,
     "Error: STUDENT and --key go with --bundles: diagnose reveal --key KEY --bundles DIR "
     "[STUDENT...]"),
    (("reveal", "--key", "course.key", "--bundles", "bundles", "--json"), 2,
     "Error: --key reveals to a class: it takes no --json or --what-if."),
    (("reveal", "--key", "course.key", "--bundles", "bundles", "zoe"), 1,
     f"Error: zoe: not a student of {Path('bundles/manifest.csv')}; nothing revealed"),
    (("answers", "--key", "nope.key", "--bundles", "bundles"), 1, None),
])
def test_the_instructors_view_refuses_in_one_line(course, args, code, error):
    result = run(*args)
    assert result.exit_code == code
    last = result.output.strip().splitlines()[-1]
    assert last == error if error else last.startswith("Error: nope.key")
    assert not Path("back").exists() and not Path("hand-back").exists()


def test_check_inside_a_class_bundle_points_to_the_instructor(course):
    bundle = Path("bundles/ana.garcia") / WS
    result = run("check", str(bundle / "01"), "--reference", str(bundle / "reference"))
    assert result.exit_code == 1
    assert "your instructor hands back the solutions" in result.output
    assert "diagnose reveal" not in result.output


# --- the handout -------------------------------------------------------------------------------

def test_handout_zips_each_bundle_the_wheel_and_a_start_sheet_in_their_language(course):
    import zipfile

    from diagnose.classroom.wheel import wheel_name

    bundle = Path("bundles/ana.garcia") / WS
    for leftover in ("attempts.jsonl", "reveal.json", ".drafts.json"):  # a graded bundle's
        (bundle / leftover).write_text("{}\n")
    result = run("handout", "--bundles", "bundles", "--out", "out", "--hand-in",
                 "Canvas, by Friday")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"ana.garcia: {Path('out/ana.garcia.zip')} (en); left out of the bundle: "
        ".drafts.json, attempts.jsonl, reveal.json",
        f"borja: {Path('out/borja.zip')} (en)", f"carmen: {Path('out/carmen.zip')} (es)",
        f"david: {Path('out/david.zip')} (en)",
        f"Checklist of what to give and what to keep private: {Path('out/README.md')}"]
    names = zipfile.ZipFile("out/ana.garcia.zip").namelist()
    runs = [f"ana.garcia/{WS.as_posix()}/{r}/{f}" for r in ("01", "02", "03", "reference")
            for f in ("metrics.jsonl", "dashboard.html")]
    assert sorted(names) == sorted([
        f"ana.garcia/{WS.as_posix()}/scenario.json",
        f"ana.garcia/{WS.as_posix()}/answer-key.sealed", *runs,
        f"ana.garcia/{wheel_name()}", "ana.garcia/START.md"])
    with zipfile.ZipFile("out/carmen.zip") as archive:
        sheet = archive.read("carmen/START.md").decode()
        packed = archive.read(f"carmen/{WS.as_posix()}/01/metrics.jsonl")
    assert packed == (Path("bundles/carmen") / WS / "01/metrics.jsonl").read_bytes()
    assert sheet.startswith("# diagnose — empieza aquí, carmen\n")
    assert "diagnose play --dir experiments/19-break-it --name carmen --lang es" in sheet
    assert "Entrega carmen-diagnoses.md tal como lo escribió el juego: Canvas, by Friday." in sheet
    checklist = Path("out/README.md").read_text()
    for private in ("course.key", ".attempts-ledger.json", "manifest.csv", "gradebook",
                    "answer-key.csv", "autograder.zip"):
        assert private in checklist


def test_handout_refusals(course):
    result = run("handout", "--bundles", "bundles", "--out", "out", "zoe")
    assert result.exit_code == 1
    assert result.output == (f"Error: zoe: not a student of {Path('bundles/manifest.csv')}; "
                             "nothing written\n")
    (Path("bundles/borja") / WS / "02/metrics.jsonl").unlink()
    result = run("handout", "--bundles", "bundles", "--out", "out")
    assert result.exit_code == 1
    assert result.output == (f"Error: {Path('bundles/borja') / WS / '02/metrics.jsonl'}: "
                             "missing; deal that student again (the same command as the deal) "
                             "before handing out\n")
    assert not Path("out").exists()


# --- the class at a glance ---------------------------------------------------------------------

def hand_in(student, answers):
    Path(f"{student}-diagnoses.md").write_text(
        "".join(f"## {i}\nDiagnosis: {slug}\n" for i, slug in answers.items()))


def graded_class():
    """ana all right; borja takes each break for the next one; david blank; carmen absent."""
    truth = truths()
    hand_in("ana.garcia", truth["ana.garcia"])
    ids = sorted(truth["borja"])
    hand_in("borja", {i: truth["borja"][ids[(k + 1) % 3]] for k, i in enumerate(ids)})
    hand_in("david", {i: "not sure" for i in ids})
    result = run("grade", "--key", "course.key", "--bundles", "bundles",
                 "ana.garcia-diagnoses.md", "borja-diagnoses.md", "david-diagnoses.md")
    assert result.exit_code == 0, result.output
    return truth


def test_class_report_counts_each_break_and_what_it_was_taken_for(course):
    truth = graded_class()
    result = run("class-report", "--key", "course.key", "--bundles", "bundles", "--out",
                 "report.html")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "4 students: 3 handed in, 1 not."
    assert lines[1] == "Level 1 (3 of 3 handed in):"
    ids = sorted(truth["borja"])
    for slug in ("no-warmup", "broken-mask", "bad-init"):
        mistaken = truth["borja"][ids[(ids.index(next(i for i in ids if truth["borja"][i] ==
                                                      slug)) + 1) % 3]]
        assert f"  {slug:<11}  found 1/3; taken for: {mistaken} 1, no answer 1" in lines
    assert "  Scores: 0/3: 2  1/3: 0  2/3: 0  3/3: 1" in lines
    assert lines[-3:] == ["Level 2 (0 of 1 handed in):", "Not handed in: carmen",
                          "Report: report.html"]
    page = Path("report.html").read_text()
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")
    assert "True break × diagnosis" in page


def test_class_report_in_spanish_and_its_refusal(course):
    result = run("class-report", "--key", "course.key", "--bundles", "bundles", "--lang", "es")
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "4 estudiantes: 0 entregaron, 4 no."
    page = Path("class-report.html").read_text()
    assert "Fallo real × diagnóstico" not in page and "Nadie ha entregado todavía." in page
    result = run("class-report", "--key", "course.key", "--bundles", "nowhere")
    assert (result.exit_code, result.output) == (1, "Error: nowhere: no such directory of "
                                                    "bundles\n")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not on PATH")
def test_class_report_renders_in_headless_chromium(course, tmp_path):
    import json
    import subprocess

    graded_class()
    assert run("class-report", "--key", "course.key", "--bundles", "bundles", "--out",
               "report.html").exit_code == 0
    page = Path("report.html").resolve()
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text().replace("</body>", """<script>
document.body.setAttribute("data-probe", JSON.stringify({
  cards: document.querySelectorAll("section.card").length,
  bars: Array.prototype.map.call(document.querySelectorAll(".hist i"),
    function (i) { return Math.round(i.getBoundingClientRect().height); }),
  cells: document.querySelectorAll(".confusion td.hit[style]").length,
  width: Math.round(document.querySelector(".card").getBoundingClientRect().width)}));
</script></body>"""))
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-background-networking", "--disable-component-update", "--no-first-run",
              f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000"]
    dom = subprocess.run([*common, "--dump-dom", probe.as_uri()], capture_output=True,
                         text=True, timeout=120, check=False).stdout
    data = json.loads(html_unescape(dom.split('data-probe="', 1)[1].split('"', 1)[0]))
    assert data["cards"] == 4 and data["width"] > 300  # level 1's three, and who is missing
    assert data["bars"][0] > data["bars"][3] > 0 and data["bars"][1] == data["bars"][2] == 0
    assert data["cells"] == 3  # each break found once: three shaded hits on the diagonal
    shot = tmp_path / "report.png"
    subprocess.run([*common, f"--screenshot={shot}", page.as_uri()], capture_output=True,
                   timeout=120, check=False)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def html_unescape(text):
    import html

    return html.unescape(text)


# --- grades for the LMS ------------------------------------------------------------------------

def test_lms_gradebooks_hold_one_score_per_student_and_no_truth(course):
    truth = truths()
    Path("garciaana_LATE_340934_208490284_diagnoses.md").write_text(
        "".join(f"## {i}\nDiagnosis: {s}\n" for i, s in truth["ana.garcia"].items()))
    Path("Borja Díaz_774411_assignsubmission_file_borja-diagnoses.md").write_text(
        "## 01\nDiagnosis: not sure\n")  # Moodle's flat download (its folders keep no id)
    files = ["garciaana_LATE_340934_208490284_diagnoses.md",
             "Borja Díaz_774411_assignsubmission_file_borja-diagnoses.md"]
    result = run("grade", "--key", "course.key", "--bundles", "bundles", *files,
                 "--gradebook", "canvas.csv", "--gradebook-format", "canvas")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == ("Gradebook for canvas: canvas.csv (4 students, "
                                              "one score each)")
    assert Path("canvas.csv").read_text().splitlines() == [
        "Student,ID,SIS User ID,SIS Login ID,Section,diagnose",
        "ana.garcia,340934,,ana@uni.edu,,3", "borja,,,borja@uni.edu,,0",
        "carmen,,,carmen@uni.edu,,", "david,,,david@uni.edu,,"]
    for form, first in (("moodle", ["Identifier,Full name,Email address,Grade,Maximum Grade",
                                    ",ana.garcia,ana@uni.edu,3,3",  # from Canvas
                                    "Participant 774411,borja,borja@uni.edu,0,3"]),
                        ("plain", ["student,email,score,max_score", "ana.garcia,ana@uni.edu,3,3",
                                   "borja,borja@uni.edu,0,3"])):
        assert run("grade", "--key", "course.key", "--bundles", "bundles", *files,
                   "--gradebook", f"{form}.csv", "--gradebook-format", form).exit_code == 0
        assert Path(f"{form}.csv").read_text().splitlines()[:3] == first
    every_slug = {slug for t in truth.values() for slug in t.values()}
    for form in ("canvas", "moodle", "plain"):
        assert not [s for s in every_slug if s in Path(f"{form}.csv").read_text()]
    result = run("grade", "--key", "course.key", "--bundles", "bundles", *files,
                 "--gradebook", "full.csv")
    assert result.output.splitlines()[-1] == (
        "Gradebook: full.csv (4 students; private: it holds every scenario's truth. For your "
        "LMS: --gradebook-format canvas, moodle or plain)")
    assert "truth_01" in Path("full.csv").read_text().splitlines()[0]


def test_an_lms_format_needs_a_gradebook(course):
    result = run("grade", "--key", "course.key", "--bundles", "bundles", "x.md",
                 "--gradebook-format", "canvas")
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "Error: --gradebook-format says what --gradebook holds: give --gradebook FILE.")


# --- feedback in the student's language ----------------------------------------------------------

def test_feedback_speaks_each_students_manifest_language(course):
    import json

    truth = truths()
    hand_in("carmen", truth["carmen"])
    hand_in("david", truth["david"])
    result = run("grade", "--key", "course.key", "--bundles", "bundles", "--json",
                 "carmen-diagnoses.md", "david-diagnoses.md")
    assert result.exit_code == 0
    carmen, david = json.loads(result.stdout)["graded"]
    assert carmen["results"][0]["feedback"].startswith("Leído ")
    assert david["results"][0]["feedback"].startswith("Read ")
    one = run("grade", "carmen-diagnoses.md", "--key", "course.key", "--dir",
              str(Path("bundles/carmen") / WS))
    assert one.exit_code == 0 and one.output.startswith("Escenario ")


def test_what_if_in_a_class_bundle_does_not_point_to_diagnose_reveal(course):
    result = run("show", "01", "--what-if", "--dir", str(Path("bundles/ana.garcia") / WS))
    assert (result.exit_code, result.output) == (1, (
        "Error: run 01 is sealed with your instructor's key: what-if is for self-study "
        "scenarios (diagnose play, then the reveal)\n"))


def test_the_gradescope_results_of_class_grading_are_deprecated(course):
    hand_in("david", truths()["david"])
    result = run("grade", "--key", "course.key", "--bundles", "bundles", "david-diagnoses.md",
                 "--gradescope", "gs")
    assert result.exit_code == 0
    assert result.stderr == (
        "Warning: --gradescope writes results.json files that Gradescope never reads (it grades "
        "uploads with its own autograder: diagnose gradescope-autograder); it goes in a later "
        "version.\n")
    assert "--gradescope " not in run("grade", "--help").output


def test_reveal_refuses_a_bundle_whose_metrics_are_not_the_ones_dealt(course):
    from grading.ledger import LEDGER

    metrics = Path("bundles/borja") / WS / "02" / "metrics.jsonl"
    metrics.write_text(metrics.read_text().replace("0", "1", 1))
    result = run("reveal", "--key", "course.key", "--bundles", "bundles", "borja")
    assert result.exit_code == 1
    assert result.output == (
        f"Error: borja: {Path('bundles/borja') / WS}: the metrics of 02 are not the ones dealt "
        "(changed since); no numbers quoted; nothing revealed (deal that student again (the "
        "same deal command) to restore the bundle, then reveal)\n")
    assert not Path("hand-back").exists() and not Path("bundles", LEDGER).exists()
