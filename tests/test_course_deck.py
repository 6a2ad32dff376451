"""A break is one folder (issue 22): the package's breaks and a course's own deck are found by
walking folders, validated by one loader, and read by each folder's `signature.py`.

`course_deck` writes a real course deck outside the package: `huge-init`
(`tests/data/course-deck/huge-init/`, the folder a course author would write), the engine's
existing `init_scale` knob at x10 (added to level 3's deck, where no init break is dealt, by
the deck's own levels.toml), with its own words, texts and signature class. The end-to-end
game with it is tests/tui/test_course_deck_tui.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from diagnose.diagnosis.signatures import Signature, load_signature, signature
from scenarios import CatalogError, load_catalog
from scenarios.catalog import DECK_SETTING
from scenarios.level_entries import parse_levels

ROOT = Path(__file__).resolve().parents[1]
SLUG = "huge-init"
COURSE_BREAK = ROOT / "tests" / "data" / "course-deck" / SLUG  # a course's own break folder
BREAK_TOML = (COURSE_BREAK / "break.toml").read_text(encoding="utf-8")
SIGNATURE_PY = (COURSE_BREAK / "signature.py").read_text(encoding="utf-8")


def course_levels(slug: str, levels: tuple[int, ...]) -> str:
    """The package's levels.toml with `slug` added at the end of each of `levels`' decks."""
    text = (resources_root() / "levels.toml").read_text(encoding="utf-8")
    entries = text.split("[[level]]")
    for k, entry in enumerate(entries):
        number = re.search(r"(?m)^number = (\d+)$", entry)
        if number and int(number[1]) in levels:
            entries[k] = re.sub(r"(?m)^(deck = \[.*)\]$", rf'\1, "{slug}"]', entry)
    return "[[level]]".join(entries)


def write_course_deck(folder: Path, toml: str = BREAK_TOML, code: str | None = SIGNATURE_PY,
                      slug: str = SLUG, levels: tuple[int, ...] = (3,)) -> Path:
    """A course deck of one break folder, `folder/<slug>/break.toml`, its catalog (locale/) and
    its signature.py, and the deck's levels.toml: the package's, with the break in `levels`'
    decks."""
    (folder / slug).mkdir(parents=True)
    (folder / "levels.toml").write_text(course_levels(SLUG, levels), encoding="utf-8")
    (folder / slug / "break.toml").write_text(toml, encoding="utf-8")
    shutil.copytree(COURSE_BREAK / "locale", folder / slug / "locale")  # its translations
    if code is not None:
        (folder / slug / "signature.py").write_text(code, encoding="utf-8")
    return folder


def package_state() -> dict[str, str]:
    """sha256 of every file of the three packages (bytecode caches aside)."""
    state = {}
    for package in ("diagnose", "grading", "scenarios"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                state[str(path.relative_to(ROOT))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


@pytest.fixture
def course_deck(tmp_path, monkeypatch):
    deck = write_course_deck(tmp_path / "deck")
    monkeypatch.setenv(DECK_SETTING, str(deck))
    return deck


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- the package's own folders ---------------------------------------------------------------

def test_every_break_folder_holds_its_data_and_one_signature_class():
    for slug, brk in scenarios.breaks(None).items():
        assert brk.folder.name == slug and not brk.course
        held = {p.name for p in Path(brk.folder).iterdir() if p.name != "__pycache__"}
        # its data and code; its words (locale/); its measured claims and figures
        assert {"break.toml", "locale", "signature.py"} <= held <= {
            "break.toml", "signature.py", "claims.toml", "figures.json", "locale"}, slug
        sig = load_signature(brk)
        assert type(sig) is not Signature and sig.brk == brk
        assert isinstance(sig.needs, tuple)


def test_a_signature_imports_neither_numpy_nor_textual():
    """A break's code runs where `diagnose` loads it; the diagnostician's part stays stdlib."""
    probe = ("import sys, json; before = set(sys.modules)\n"
             "import scenarios; from diagnose.diagnosis.signatures import signature\n"
             "[signature(s) for s in scenarios.breaks(None)]\n"
             "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not set(json.loads(done.stdout)) & {"numpy", "textual", "rich", "cryptography"}


def test_no_file_of_the_app_or_the_grader_names_a_slug():
    """Only the catalog's loading code may name a break: everything else finds them in the
    folders, and which level deals them in levels.toml."""
    allowed: dict[str, str] = {}
    slugs = [s for s in scenarios.breaks(None) if s != scenarios.HEALTHY]
    for package in ("diagnose", "grading"):
        for path in (ROOT / package).rglob("*.py"):
            name = str(path.relative_to(ROOT))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                named = [s for s in slugs if f'"{s}"' in line or f"{s}'s" in line
                         or f" {s} " in line or f"`{s}`" in line]
                if named and name in allowed:
                    continue
                assert not named, f"{name}:{number} names {named}"


# --- a course's own deck -----------------------------------------------------------------------

def test_a_course_break_joins_its_level_and_is_weighed_and_listed(course_deck):
    brk = scenarios.breaks(3)[SLUG]
    assert brk.course and Path(brk.folder) == course_deck / SLUG
    assert SLUG not in scenarios.breaks(2) and SLUG not in scenarios.breaks(1)
    packaged = load_catalog(resources_root()).levels
    assert scenarios.level(3).deck == (*packaged[3].deck, SLUG)
    assert scenarios.level(1).deck == packaged[1].deck
    assert type(signature(SLUG)).__name__ == "HugeInit"
    out = _cli("breaks")
    assert out.exit_code == 0
    assert f"from the course deck: {course_deck / SLUG}" in out.output


def test_the_deck_option_is_the_setting(tmp_path):
    deck = write_course_deck(tmp_path / "deck")
    out = _cli("--deck", str(deck), "breaks", "--lang", "es")
    assert out.exit_code == 0 and SLUG in out.output
    assert "de la baraja del curso" in out.output
    out = _cli("--deck", str(tmp_path / "nowhere"), "breaks")
    assert out.exit_code == 2
    assert "Directory" in out.output and "does not exist" in out.output


REFUSED = [
    ("slug", BREAK_TOML.replace('slug = "huge-init"', 'slug = "big-init"'), "big-init",
     "{deck}/big-init/break.toml: slug: 'big-init' is already used by "
     "scenarios/breaks/big-init/break.toml"),
    ("knob", BREAK_TOML.replace("init_scale = 10.0", "init_scael = 10.0"), SLUG,
     "{deck}/huge-init/break.toml: [override] init_scael: not a key of healthy.toml"),
    ("words", BREAK_TOML.replace('"init x10", ', '"init x10", "Frozen Block", '), SLUG,
     "{deck}/huge-init/break.toml: [words] en: 'Frozen Block' already names frozen-block "
     "(scenarios/breaks/frozen-block/break.toml) in a deck this break joins"),
    ("level", "level = 3\n" + BREAK_TOML, SLUG,
     "{deck}/huge-init/break.toml: level: a break names no level; levels.toml lists each "
     "level's breaks (its deck)"),
    ("folder", BREAK_TOML, "huge", "{deck}/huge/break.toml: slug: 'huge-init' differs from its "
     "folder's name 'huge'; a break's folder is named after its slug"),
]


@pytest.mark.parametrize(("what", "toml", "folder", "message"), REFUSED,
                         ids=[r[0] for r in REFUSED])
def test_a_course_break_is_refused_in_one_line_at_the_door(tmp_path, monkeypatch, what, toml,
                                                           folder, message):
    deck = write_course_deck(tmp_path / "deck", toml, slug=folder)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    out = _cli("breaks")
    assert out.exit_code == 1
    assert out.output == "Error: " + message.format(deck=deck) + "\n"


def test_a_deck_that_is_no_deck_is_refused(tmp_path):
    root = resources_root()
    with pytest.raises(CatalogError) as caught:
        load_catalog(root, deck=tmp_path / "missing")
    assert str(caught.value) == (f"{DECK_SETTING}: {tmp_path / 'missing'} is not a folder (a "
                                 "course deck is a folder of break folders, <slug>/break.toml)")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogError, match=r"holds no break folder \(<slug>/break\.toml\)$"):
        load_catalog(root, deck=tmp_path / "empty")


def resources_root() -> Path:
    from importlib import resources

    return Path(str(resources.files("scenarios")))


@settings(max_examples=50)
@given(data=st.data())
def test_a_phrase_of_a_deck_it_joins_is_refused_however_it_is_written(tmp_path_factory, data):
    """Whatever case, accents or hyphens a course break writes a phrase in, if the grader
    would read it as a phrase of a break of the same level, the deck is refused."""
    from scenarios.folding import fold

    level = data.draw(st.sampled_from([lv.number for lv in scenarios.all_levels()]))
    other = data.draw(st.sampled_from(sorted(scenarios.breaks(level).values(),
                                             key=lambda b: b.slug)))
    lang = data.draw(st.sampled_from(scenarios.LANGS))
    phrase = data.draw(st.sampled_from(other.words[lang]))
    written = "".join(c.upper() if data.draw(st.booleans()) else c for c in phrase)
    toml = BREAK_TOML.replace(f'{lang} = ["', f'{lang} = [{json.dumps(written)}, "', 1)
    deck = write_course_deck(tmp_path_factory.mktemp("deck"), toml, levels=(level,))
    with pytest.raises(CatalogError) as caught:
        load_catalog(resources_root(), deck=deck)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{deck}/{SLUG}/break.toml: [words] {lang}: ")
    assert fold(written) == fold(phrase) and "already names" in text


SIGNATURE_REFUSED = [
    ("missing", None, "{deck}/huge-init/signature.py: missing (a break's folder holds its "
     "break.toml and the signature.py that reads its signature)"),
    ("syntax", "class (", "{deck}/huge-init/signature.py: cannot be loaded: SyntaxError: "),
    ("import", "import no_such_module_here\n",
     "{deck}/huge-init/signature.py: cannot be loaded: ModuleNotFoundError: "),
    ("none", "X = 1\n", "{deck}/huge-init/signature.py: expected one class deriving from "
     "diagnose.diagnosis.signatures.Signature, found 0"),
    ("two", SIGNATURE_PY + "\n\nclass Other(HugeInit):\n    pass\n",
     "{deck}/huge-init/signature.py: expected one class deriving from "
     "diagnose.diagnosis.signatures.Signature, found 2"),
    ("method", SIGNATURE_PY.split("    def checks")[0],
     "{deck}/huge-init/signature.py: HugeInit does not define checks"),
    ("needs", SIGNATURE_PY.replace('needs = ("act_mean_abs", "spectral_norm")',
                                   'needs = "spectral_norm"'),
     "{deck}/huge-init/signature.py: HugeInit.needs: expected a tuple of field names"),
]


@pytest.mark.parametrize(("what", "code", "message"), SIGNATURE_REFUSED,
                         ids=[r[0] for r in SIGNATURE_REFUSED])
def test_a_course_signature_that_cannot_serve_is_one_line(tmp_path, monkeypatch, what, code,
                                                          message):
    deck = write_course_deck(tmp_path / "deck", code=code)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    with pytest.raises(CatalogError) as caught:
        signature(SLUG)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(message.format(deck=deck)), text


def test_the_gradescope_zip_carries_a_course_breaks_data_never_code(course_deck):
    from diagnose.classroom.gradescope import grader_files

    names = dict(grader_files())
    assert names[f"scenarios/breaks/{SLUG}/break.toml"] == BREAK_TOML.encode()
    # the levels in use, whole: the deck's levels.toml extends the package's (here it restates
    # every level, so they read as the deck's file does)
    carried = parse_levels(tomllib.loads(names["scenarios/levels.toml"].decode()), "zip",
                           scenarios.breaks(None), words=False)
    assert carried == parse_levels(tomllib.loads((course_deck / "levels.toml").read_text()),
                                   "zip", scenarios.breaks(None), words=False)
    assert "scenarios/breaks/bad-init/break.toml" in names
    catalog = "locale/es/LC_MESSAGES/break.mo"  # its words in Spanish, compiled
    assert names[f"scenarios/breaks/{SLUG}/{catalog}"] == (COURSE_BREAK / catalog).read_bytes()
    assert f"scenarios/breaks/bad-init/{catalog}" in names
    assert not [n for n in names if n.startswith("scenarios/breaks/")
                and not n.endswith("/break.toml") and "/locale/" not in n]


def test_a_broken_course_signature_stops_every_command_at_the_door(tmp_path):
    deck = write_course_deck(tmp_path / "deck", code="class (")
    out = _cli("--deck", str(deck), "breaks")
    assert out.exit_code == 1 and out.output.count("\n") == 1
    assert out.output.startswith(f"Error: {deck}/huge-init/signature.py: cannot be loaded: "
                                 "SyntaxError: ")


ENTRY_NAMES = st.text(alphabet="hugeint-._x", min_size=1, max_size=12).filter(
    lambda n: n not in (".", ".."))


@settings(max_examples=50)
@given(entries=st.lists(st.tuples(ENTRY_NAMES, st.sampled_from(["file", "toml", "empty",
                                                                  "break"])),
                        max_size=4, unique_by=lambda e: e[0]))
def test_any_deck_folder_loads_or_is_one_line(tmp_path_factory, entries):
    """Whatever a deck folder holds (files, loose TOML, empty or misnamed folders, breaks
    whose slug is or is not their folder's name), the catalog loads with every break in a
    folder of its own slug, or is refused in one line naming the entry."""
    deck = tmp_path_factory.mktemp("deck")
    for name, kind in entries:
        if kind == "file":
            (deck / name).write_text("x", encoding="utf-8")
        elif kind == "toml":
            (deck / f"{name}.toml").write_text(BREAK_TOML, encoding="utf-8")
        elif kind == "empty":
            (deck / name).mkdir()
        else:
            write_course_deck(deck, slug=name)
    try:
        catalog = load_catalog(resources_root(), deck=deck)
    except CatalogError as err:
        assert "\n" not in str(err) and str(err).startswith((str(deck), DECK_SETTING)), str(err)
        return
    for brk in catalog.breaks.values():
        assert Path(brk.folder).name == brk.slug
    assert [b.slug for b in catalog.breaks.values() if b.course] in ([], [SLUG])


def test_a_cluster_deal_of_a_level_with_a_course_break_is_refused_before_any_task(course_deck,
                                                                                tmp_path):
    """The dealer's check runs on the workers, where a course's code is not installed."""
    from diagnose.classroom.cluster import ClusterError, Order, train_on_cluster

    orders = [Order("ana", tmp_path / "ana", "C-1", 1), Order("ben", tmp_path / "ben", "C-2", 3)]
    with pytest.raises(ClusterError) as caught:
        next(train_on_cluster(None, orders, secret=b"s" * 32, steps=5, check=True))
    assert str(caught.value) == ("huge-init is a course deck's break: its code runs only on "
                                 "this machine, so a level that holds it is dealt here, without "
                                 "--scheduler")
