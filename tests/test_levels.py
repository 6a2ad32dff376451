"""Levels as data: the deal of a level's deck, scenario.json's level, grading and reveal
against the scenario's own deck. No training: workspaces are scenario.json and a sealed key."""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from budget import examples
from hypothesis import event, given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.game.dealing import plan_runs, planned_runs
from diagnose.game.scenario import ScenarioSpec
from grading.dealt import assignment
from grading.diagnoses import GradeError
from grading.grade import GradeOptions, grade_workspace, read_scenario, scenario_json
from grading.seal import seal

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import home_secret  # noqa: E402

SECRET = b"s" * 32


def _deal_before_levels_toml(code: str, level: int) -> dict[str, str]:
    """The two deals as they were written before levels.toml (kept here as the reference):
    level 1 the HMAC's Lehmer permutation of the lab's three, levels 2 and 3 one of the deck's
    ordered triples."""
    import hashlib
    import hmac
    import math

    def hmac_int(*parts: str) -> int:
        digest = hmac.new(SECRET, "\0".join(parts).encode(), hashlib.sha256).digest()
        return int.from_bytes(digest, "big")

    pool = sorted(scenarios.breaks(level))
    if level != 1:
        triples = list(itertools.permutations(pool, 3))
        index = hmac_int("deal", str(level), code) % len(triples)
        return dict(zip(("01", "02", "03"), triples[index], strict=True))
    index, order = hmac_int("permutation", code) % math.factorial(len(pool)), []
    for position in range(len(pool), 0, -1):
        pick, index = divmod(index, math.factorial(position - 1))
        order.append(pool.pop(pick))
    return dict(zip(("01", "02", "03"), order, strict=True))


@settings(max_examples=examples(200))
@given(code=st.text(min_size=1, max_size=20), level=st.sampled_from([1, 2, 3]))
def test_each_levels_deal_is_the_one_before_levels_toml(code, level):
    """levels.toml's deal rules give every code the deal it had: level 1 keeps its permutation
    (its metrics bytes are pinned), levels 2 and 3 their triples."""
    assert assignment(SECRET, code, scenarios.level(level)) == _deal_before_levels_toml(
        code, level)


@pytest.mark.parametrize("level", [2, 3])
def test_a_level_deals_three_distinct_slugs_of_its_deck(level):
    entry = scenarios.level(level)
    deck = sorted(entry.slugs)
    seen = Counter()
    for n in range(600):
        deal = assignment(SECRET, f"code-{n}", entry)
        assert list(deal) == ["01", "02", "03"]
        assert len(set(deal.values())) == 3 and set(deal.values()) <= set(deck)
        assert sum(slug == scenarios.HEALTHY for slug in deal.values()) <= 1
        seen[tuple(deal.values())] += 1
    triples = list(itertools.permutations(deck, 3))
    assert set(seen) <= set(triples)
    if len(triples) <= 120:  # every ordered triple turns up: the deal is spread over them all
        assert len(seen) == len(triples)


@pytest.mark.parametrize("level", [2, 3])
def test_elimination_never_names_the_third_run(level):
    """Over every ordered triple the level deals, once any two of a scenario's runs are known,
    at least two outcomes remain for the third: knowing the deck is not knowing the answer."""
    deck = sorted(scenarios.breaks(level))
    entry = scenarios.level(level)
    dealt = {tuple(assignment(SECRET, f"code-{n}", entry).values()) for n in range(4000)}
    assert dealt == set(itertools.permutations(deck, 3))  # the deal's whole support
    for triple in dealt:
        for known in itertools.combinations(range(3), 2):
            (third,) = set(range(3)) - set(known)
            left = {other[third] for other in dealt
                    if all(other[k] == triple[k] for k in known)}
            assert len(left) >= 2, (triple, known, left)


def test_level_two_is_a_pool_with_the_decoy_and_a_mirror():
    """At least five outcomes, the healthy decoy among them, and a knob that two of its
    breaks move to opposite sides of the healthy value (elimination by family fails)."""
    deck = scenarios.breaks(2)
    assert len(deck) >= 5 and scenarios.HEALTHY in deck
    healthy = scenarios.healthy_config()
    sides: dict[str, set[bool]] = {}
    for brk in deck.values():
        for key, value in brk.override.items():
            if isinstance(value, (int, float)):
                sides.setdefault(key, set()).add(value > getattr(healthy, key))
    assert any(len(both) == 2 for both in sides.values()), sides
    assert {s for s, b in deck.items() if not b.healthy} - set(scenarios.breaks(1)) == set(
        s for s, b in deck.items() if not b.healthy)  # its own slugs, not the lab's


@pytest.mark.parametrize("slug", sorted(scenarios.breaks(None)))
def test_a_title_names_the_bug_never_its_magnitude(slug):
    """The form's labels are the titles: no number and no factor in any language (the
    reveal's `changed` gives the magnitude, naming the key it changed)."""
    brk = scenarios.breaks(None)[slug]
    for lang, title in brk.title.items():
        assert not any(char.isdigit() or char in "×%" for char in title), (lang, title)
        for key in brk.override:
            assert key in brk.reveal[lang].changed, (lang, key)


def test_the_form_offers_every_level_without_a_magnitude():
    from diagnose.tui.screens.form import choices

    for level in scenarios.all_levels():
        for lang in ("en", "es"):
            labels = [label for _, label in choices(lang, level.number)]
            assert not any(c.isdigit() or c == "×" for label in labels for c in label)
    assert scenarios.HEALTHY in dict(choices("en", 2))


def test_level_three_deals_the_decoy_with_its_own_seed():
    entry = scenarios.level(3)
    code = next(f"c{n}" for n in range(500)
                if scenarios.HEALTHY in assignment(SECRET, f"c{n}", entry).values())
    deal, plans = plan_runs(SECRET, code, entry, 20)
    decoy = next(rid for rid, slug in deal.items() if slug == scenarios.HEALTHY)
    by_run = {p.run: p for p in plans}
    assert by_run[decoy].config == by_run["reference"].config
    assert by_run[decoy].seed != by_run["reference"].seed


def test_spec_checks_its_level():
    assert ScenarioSpec(level=3).entry == scenarios.level(3)
    assert ScenarioSpec().level == scenarios.first_level().number == 1
    assert planned_runs(level=2) == ("reference", "01", "02", "03")
    assert planned_runs() == ("reference", "01", "02", "03")
    with pytest.raises(scenarios.LevelError,
                       match=r"^level 4 is not one of the levels \(1, 2, 3\) "):
        ScenarioSpec(level=4)


def test_scenario_json_writes_the_level_and_older_files_are_level_one(tmp_path):
    one = scenario_json("C", ["01"], 5, "v", "self-study", 1)
    assert json.loads(one)["level"] == 1
    older = json.loads(one)
    del older["level"]  # written before levels existed
    (tmp_path / "scenario.json").write_text(json.dumps(older))
    assert read_scenario(tmp_path).level == 1
    (tmp_path / "scenario.json").write_text(scenario_json("C", ["01"], 5, "v", "self-study", 3))
    assert read_scenario(tmp_path).level == 3
    for level in (9, True, "2", [1], None):
        (tmp_path / "scenario.json").write_text(json.dumps(json.loads(one) | {"level": level}))
        with pytest.raises(GradeError, match=re.escape(f"scenario.json: level {level!r} is not "
                                                       "one of the levels (1, 2, 3)")):
            read_scenario(tmp_path)


def _level_workspace(path: Path, truth: dict[str, str], level: int, secret: bytes) -> Path:
    path.mkdir(parents=True)
    (path / "scenario.json").write_text(
        scenario_json("LVL", sorted(truth), 400, "test", "self-study", level))
    (path / "answer-key.sealed").write_text(seal("LVL", truth, secret))
    return path


ENGLISH = GradeOptions()


def _graded(tmp_path: Path, truth: dict[str, str], level: int, answers: str,
            options: GradeOptions = ENGLISH):
    """The self-study grading of `answers` against a level's workspace dealt as `truth`."""
    secret = home_secret()
    ws = tmp_path / "ws"
    if not ws.exists():
        _level_workspace(ws, truth, level, secret)
    path = tmp_path / "d.md"
    path.write_text(answers)
    return grade_workspace(path, ws, secret, options, record=False)


def test_grading_reads_answers_in_the_scenarios_own_deck(tmp_path):
    truth = {"01": "big-init", "02": "short-warmup", "03": "leaky-mask"}
    # "warmup" and "mask" name a break of level 1 and one of level 2: not ambiguous here;
    # "init" names big-init and its mirror small-init at level 2, so it must say which
    report = _graded(tmp_path, truth, 2, "## 01\nDiagnosis: init too large\n## 02\nDiagnosis: "
                     "warmup\n## 03\nDiagnosis: mask\n")
    assert report.score == 3
    assert not _graded(tmp_path, truth, 2, "## 01\nDiagnosis: init\n").results[0].correct


def test_the_decoys_words_answer_at_level_three(tmp_path):
    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
    report = _graded(tmp_path, truth, 3, "## 01\nDiagnóstico: sin fallo\n## 02\nDiagnosis: "
                     "nothing\n## 03\nDiagnosis: nothing\n", GradeOptions("es"))
    assert [r.correct for r in report.results] == [True, False, False]
    assert "Sana (sin fallo)" in report.results[0].verdict


def test_the_reveal_explains_every_dealt_run_the_decoy_too(tmp_path):
    """The TUI fixture's runs relabelled as a level-3 deal: the solutions name the decoy."""
    import shutil

    from diagnose.diagnosis.reveal import render_solutions
    from diagnose.workspace import open_workspace

    ws = tmp_path / "course" / "experiments" / "19-break-it-level-3"
    shutil.copytree(Path(__file__).parent / "tui" / "data" / "scenario", ws)
    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
    data = json.loads((ws / "scenario.json").read_text()) | {"level": 3}
    (ws / "scenario.json").write_text(json.dumps(data))
    workspace = open_workspace(ws)
    assert workspace.solutions_path.name == "03-three-failures-ref-level-3.md"
    text = render_solutions(workspace, truth, "es")
    assert "## 01 — Sana (sin fallo) (`healthy`)" in text
    assert "`high-lr`" in text and "`frozen-block`" in text


def _fixture_runs():
    from diagnose.workspace import open_workspace

    workspace = open_workspace(Path(__file__).parent / "tui" / "data" / "scenario")
    header, reference = workspace.read_run("reference")
    return header, reference, workspace.read_run("02")[1]


@settings(max_examples=40)
@given(heads=st.lists(st.integers(0, 8), min_size=3, max_size=3),
       neurons=st.lists(st.integers(0, 512), min_size=3, max_size=3))
def test_the_reveal_quotes_each_panel_from_the_runs_own_records(heads, neurons):
    """Bug 5's class: what the reveal says of this run is computed from its records (here
    Panel 6's dead heads and neurons, rewritten at every evaluation), never the catalog's."""
    from diagnose.diagnosis.diagnostician import figures, panel_facts
    from diagnose.diagnosis.signatures import fmt as _fmt

    header, reference, run = _fixture_runs()
    evals = [r for r in run if r["dead_heads"] is not None]
    assert len(evals) == len(heads)
    run = [dict(r) for r in run]
    for record, head, neuron in zip([r for r in run if r["dead_heads"] is not None], heads,
                                    neurons, strict=True):
        record["dead_heads"], record["dead_neurons_frac"] = head, neuron / 512
    facts = panel_facts(figures(run, reference, header), header)
    assert set(facts) == {"1", "2", "3", "4", "5", "6"}
    assert facts["6"].text["en"].startswith(f"up to {_fmt(max(heads))} dead heads at an "
                                            f"evaluation, {_fmt(heads[-1])} at the end")
    assert f"{_fmt(neurons[-1] / 512 * 100)}% of the neurons" in facts["6"].text["en"]
    assert f"hasta {_fmt(max(heads))} cabezas muertas" in facts["6"].text["es"]


def test_every_panel_of_the_reveal_says_what_this_run_showed(tmp_path):
    import shutil

    from diagnose.diagnosis.reveal import render_solutions
    from diagnose.workspace import open_workspace

    ws = tmp_path / "course" / "experiments" / "19-break-it-level-2"
    shutil.copytree(Path(__file__).parent / "tui" / "data" / "scenario", ws)
    data = json.loads((ws / "scenario.json").read_text()) | {"level": 2}
    (ws / "scenario.json").write_text(json.dumps(data))
    truth = {"01": "raised-lr", "02": "healthy", "03": "small-init"}
    for lang, this_run in (("en", "*This run:*"), ("es", "*Esta ejecución:*")):
        text = render_solutions(open_workspace(ws), truth, lang)
        for section in text.split("\n## ")[1:]:
            if not section[:2].isdigit():  # the signatures page, after the IDs
                continue
            section = section.split("\n**", 3)[-1]  # from the panels' texts on
            panels = [line for line in section.splitlines() if line.startswith("- Panel ")]
            facts = [line for line in section.splitlines() if line.startswith(f"  {this_run}")]
            assert len(panels) == len(facts) == 6, section


# --- the progress file and `diagnose progress` ----------------------------------------------

def _cli(*args: str, input: str | None = None):
    from click.testing import CliRunner

    from diagnose.cli import cli

    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_progress_records_first_attempts_and_the_passing_rule(private_home):
    from diagnose.game.progress import load_progress, next_level, record_grading

    assert record_grading(1, "A", 2, 3, counts=True) == (False, [])
    assert record_grading(1, "A", 3, 3, counts=False) == (False, [])  # after the reveal
    progress, _ = load_progress()
    assert progress[1].firsts == [(2, 3)] and progress[1].best == (3, 3)
    assert next_level(progress) == 1
    assert record_grading(1, "B", 3, 3, counts=True) == (True, [])
    assert next_level(load_progress()[0]) == 2
    out = _cli("progress")
    assert out.exit_code == 0
    assert "Level 1: passed\n  scenarios played: 2\n  first-attempt scores: 2/3, 3/3\n" \
           "  best: 3/3\n" in out.output
    assert "Next: diagnose play --level 2" in out.output
    assert "Nivel 1: superado" in _cli("progress", "--lang", "es").output


def test_a_corrupt_progress_file_is_moved_aside_with_a_warning(private_home):
    (private_home / "progress.json").write_text("{not json")
    out = _cli("progress")
    assert out.exit_code == 0
    assert "Warning:" in out.output and "moved aside" in out.output
    assert "Next: diagnose play\n" in out.output
    assert [p.name.startswith("progress.json.corrupt-") for p in private_home.iterdir()
            if p.name.startswith("progress")] == [True]


def test_progress_reset_asks_first(private_home):
    from diagnose.game.progress import record_grading

    record_grading(2, "A", 1, 3, counts=True)
    out = _cli("progress", "--reset", input="n\n")
    assert out.exit_code == 1 and (private_home / "progress.json").exists()
    out = _cli("progress", "--reset", "--yes")
    assert out.exit_code == 0 and "Progress erased." in out.output
    assert not (private_home / "progress.json").exists()
    assert _cli("progress", "--yes").exit_code == 2


def test_level_options_refuse_what_they_cannot_do(tmp_path):
    out = _cli("new", "--level", "4")
    assert out.exit_code == 2 and "--level" in out.output
    ws = tmp_path / "ws"
    shutil_copy_fixture(ws)
    out = _cli("play", "--dir", str(ws), "--level", "2")
    assert out.exit_code == 1
    assert out.output == (f"Error: {ws}: holds a level-1 scenario, not level 2; choose another "
                          "--dir, or leave --dir out to use the level's own folder\n")


def shutil_copy_fixture(target: Path) -> Path:
    import shutil

    return Path(shutil.copytree(Path(__file__).parent / "tui" / "data" / "scenario", target))


def test_new_level_goes_to_the_levels_own_folder(tmp_path, monkeypatch):
    """A real (5-step) level-3 scenario, made where `--level 3` puts it, graded from its file."""
    monkeypatch.chdir(tmp_path)
    out = _cli("new", "--level", "3", "--steps", "5", "--seed", "L3", "--jobs", "2")
    assert out.exit_code == 0, out.output
    ws = tmp_path / "experiments" / "19-break-it-level-3"
    scenario = json.loads((ws / "scenario.json").read_text())
    assert scenario["level"] == 3 and scenario["ids"] == ["01", "02", "03"]
    truth = json.loads(_cli("reveal", "--dir", str(ws), "--json").output.splitlines()[0])
    assert set(truth.values()) <= set(scenarios.breaks(3))
    answers = tmp_path / "ana-diagnoses-level-3.md"
    answers.write_text("<!-- scenario: L3 -->\n" + "".join(
        f"## {rid}\nDiagnosis: {slug}\n" for rid, slug in truth.items()))
    out = _cli("grade", "--yes", str(answers))  # found beside level 1's folder by its code
    assert out.exit_code == 0, out.output
    assert "3/3" in out.output


# --- what-if ---------------------------------------------------------------------------------


def test_show_what_if_is_refused_before_the_reveal(fixture_course):
    out = _cli("show", "01", "--what-if")
    assert out.exit_code == 1
    assert out.output == ("Error: run 01 is still sealed: what-if comes after the reveal "
                          "(`diagnose reveal`, or grading)\n")
    assert not (fixture_course / "whatif").exists()
    assert _cli("show", "01", "--what-if", "--steps", "0:5").exit_code == 2


WHATIF_STEPS = 5  # the flow, not the physics: each dose trains as long as the dealt run


@pytest.fixture
def short_course(fixture_course, private_home):
    """The fixture's scenario (its code and key: the same deal) dealt again at WHATIF_STEPS."""
    from tests.tui.conftest import deal_again

    return deal_again(fixture_course, private_home, WHATIF_STEPS)  # fixture_course put the key


def test_show_what_if_trains_every_other_dose_after_the_reveal(short_course):
    fixture_course = short_course
    assert _cli("reveal").exit_code == 0
    out = _cli("show", "ref", "--what-if", "--lang", "es")
    assert out.output == "Error: la referencia no tiene fallo que variar; elige un ID\n"
    out = _cli("show", "02", "--what-if")  # broken-mask: no magnitude
    assert out.exit_code == 1 and "has no magnitude to vary" in out.output
    out = _cli("show", "1", "--what-if")  # no-warmup: three doses trained, the dealt one read
    assert out.exit_code == 0, out.output
    assert "What if: run 01" in out.output
    for label in ("warmup_steps=0 (dealt)", "warmup_steps=2 ", "warmup_steps=12 (healthy)"):
        assert label in out.output
    cached = sorted(p.name for p in (fixture_course / "whatif" / "01").iterdir())
    assert cached == ["warmup_steps-12", "warmup_steps-2", "warmup_steps-6"]
    out = _cli("reveal", "--what-if")  # 01's doses are cached; 03's (bad-init) train now
    assert out.exit_code == 0, out.output
    page = (fixture_course / "01" / "dashboard.html").read_text()
    assert "What if: run 01" in page and page.count("whatif-panel") == 6
    assert "warmup_steps=2" in page and "</html>" in page
    assert "What if: run 03" in (fixture_course / "03" / "dashboard.html").read_text()
    untouched = fixture_course / "02" / "dashboard.html"  # broken-mask: no magnitude
    assert not untouched.exists() or "What if" not in untouched.read_text()


def test_a_what_if_file_cut_short_or_unreadable_is_trained_again(fixture_course):
    """No training here: which doses a what-if would train, read from a hostile cache."""
    from diagnose.game.whatif import WHATIF_DIR, plan_whatif, ready, to_train
    from diagnose.metrics import make_header, write_metrics
    from diagnose.workspace import open_workspace

    assert _cli("reveal").exit_code == 0
    workspace = open_workspace(fixture_course)
    plan = plan_whatif(workspace, "01")  # no-warmup: warmup 0 (dealt), 2, 6, 12
    dealt = next(dose for dose in plan.doses if dose.dealt)
    others = [dose for dose in plan.doses if not dose.dealt]
    assert to_train(plan, ready(workspace, plan)) == others
    assert list(ready(workspace, plan)) == [dealt]
    folder = fixture_course / WHATIF_DIR / "01"
    whole, short, garbage = others
    records = workspace.read_run("01")[1]
    from diagnose.engine import run_header_fields

    header = make_header(run="x", **run_header_fields(whole.config))
    for dose, rows in ((whole, records), (short, records[:5])):
        path = folder / dose.folder(plan.field) / "metrics.jsonl"
        path.parent.mkdir(parents=True)
        write_metrics(path, header, rows)
    path = folder / garbage.folder(plan.field) / "metrics.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("not metrics\n")
    assert to_train(plan, ready(workspace, plan)) == [short, garbage]
    assert set(ready(workspace, plan)) == {dealt, whole}


def test_check_reads_a_file_in_the_scenarios_own_deck(tmp_path):
    truth = {"01": "big-init", "02": "short-warmup", "03": "leaky-mask"}
    ws = _level_workspace(tmp_path / "ws", truth, 2, home_secret())
    answers = tmp_path / "d.md"
    answers.write_text("<!-- scenario: LVL -->\n## 01\nDiagnosis: init too big\n")
    out = _cli("grade", str(answers), "--dir", str(ws), "--check", "--json")
    assert out.exit_code == 0, out.output
    assert '"big-init"' in out.output and "ambiguous" not in out.output


def test_no_text_promises_a_bug_in_every_run_or_the_same_mistakes_at_level_two():
    """Bug 8: the decoy is dealt from level 2 on, and level 2 is a pool, not the lab again."""
    from diagnose.tui.text import help_text

    en, es = help_text("en"), help_text("es")
    assert "exactly one designed bug" not in en and "at most one" in en
    assert "exactamente un fallo" not in es and "como mucho un" in es
    # the entropy floor binds the validation loss, not one training batch
    assert "binds the **validation** loss" in " ".join(en.split())
    assert "limita la pérdida de **validación**" in " ".join(es.split())
    for args in (["breaks", "--help"], ["--help"], ["new", "--help"]):
        out = _cli(*args)
        assert out.exit_code == 0 and "same mistakes" not in out.output
        assert "same at subtle" not in out.output and "exactly one" not in out.output
    listing = _cli("breaks").output
    assert "Level 2: a pool of subtle breaks and their mirrors" in listing


# --- levels.toml: every level one entry, read through one object --------------------------

PACKAGE_ROOT = Path(scenarios.__file__).resolve().parent
SPECIAL_CASE = re.compile(r"(?<![.\w])level\w*\s*[!=]=\s*\d|\d\s*[!=]=\s*level|"
                          r"(?:IntRange|Bounded)\(1, 3\)|\bDECKS\b|\bLAB_BREAKS\b")


def test_no_code_lists_a_levels_breaks_or_singles_out_a_level_number():
    """What a level deals, how it is named and titled is its entry's: no `level == 1`, no
    fixed range of level numbers, no table of decks outside levels.toml."""
    root = PACKAGE_ROOT.parent
    found = [f"{path.relative_to(root)}:{number}: {line.strip()}"
             for package in ("diagnose", "grading", "scenarios")
             for path in sorted((root / package).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if SPECIAL_CASE.search(line)]
    assert not found, "\n".join(found)


ALL_SLUGS = sorted(scenarios.breaks(None))
DEALT_SLUGS = [s for s in ALL_SLUGS if s != scenarios.HEALTHY]
_named = {"name": st.just({"en": "a", "es": "b"}),
          "deck": st.lists(st.sampled_from(DEALT_SLUGS), min_size=3, max_size=8, unique=True)}
fair = st.one_of(  # entries that mostly load: a permutation, or a draw with or without the decoy
    st.fixed_dictionaries({"number": st.integers(1, 6), **_named,
                           "deal": st.just("permutation")}, optional={"in_title": st.booleans()}),
    st.fixed_dictionaries({"number": st.integers(1, 6), **_named, "deal": st.just("draw")},
                          optional={"decoy": st.booleans(), "runs": st.integers(1, 3),
                                    "in_title": st.booleans()}))
wild = st.fixed_dictionaries(  # any of the values a course author may mistype
    {"number": st.sampled_from([0, 1, 2, 100, True, "1"]),
     "name": st.sampled_from([{"en": "a", "es": "b"}, {"en": "a"}, {"en": "", "es": "b"}]),
     "deck": st.lists(st.sampled_from([*ALL_SLUGS, "nope"]), max_size=6)},
    optional={"decoy": st.sampled_from([True, False, "yes"]),
              "deal": st.sampled_from(["permutation", "draw", "x"]),
              "runs": st.integers(-1, 9),
              "suffix": st.sampled_from(["", "-level-9", "-b", "-B", "/x", "-level-2", 3]),
              "in_title": st.sampled_from([True, False, 1]), "colour": st.just("red")})


@settings(max_examples=examples(300), deadline=None)
@given(levels=st.one_of(st.lists(fair, max_size=4, unique_by=lambda e: e["number"]),
                        st.lists(st.one_of(fair, wild), max_size=4)),
       code=st.text(min_size=1, max_size=9))
def test_any_levels_file_loads_whole_or_is_refused_in_one_line(levels, code):
    """Generated levels files: each is refused in one line naming the file, or every level it
    holds deals what its entry says and owns folders no other level has."""
    from scenarios.levels import parse_levels

    try:
        read = parse_levels({"level": levels}, "levels.toml", scenarios.breaks(None))
    except scenarios.CatalogError as err:
        assert str(err).startswith("levels.toml: ") and "\n" not in str(err)
        event("refused")
        return
    event(f"{len(read)} levels")
    assert list(read) == sorted(e["number"] for e in levels)
    assert len({lv.folder(Path("x/19-break-it")) for lv in read.values()}) == len(read)
    for level in read.values():
        assert len(level.deck) >= 3 and scenarios.HEALTHY not in level.deck
        deal = assignment(SECRET, code, level)
        assert list(deal) == [f"{n:02d}" for n in range(1, level.runs + 1)]
        assert len(set(deal.values())) == level.runs and set(deal.values()) <= set(level.slugs)
        if level.deal == "permutation":
            assert sorted(deal.values()) == sorted(level.deck)


def test_the_gradescope_zip_carries_the_levels_file_in_use(tmp_path, monkeypatch):
    from diagnose.classroom.gradescope import grader_file

    packaged, healthy = PACKAGE_ROOT / "levels.toml", PACKAGE_ROOT / "healthy.toml"
    assert grader_file("scenarios/levels.toml", packaged) == packaged.read_bytes()
    own = tmp_path / "levels.toml"
    own.write_bytes(packaged.read_bytes() + b"\n# a course's own\n")
    monkeypatch.setenv("DIAGNOSE_LEVELS", str(own))
    assert grader_file("scenarios/levels.toml", packaged) == own.read_bytes()
    assert grader_file("scenarios/healthy.toml", healthy) == healthy.read_bytes()
