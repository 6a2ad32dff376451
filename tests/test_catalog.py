"""The catalog loads, applies its breaks, and refuses every kind of typo with one clear line."""

from __future__ import annotations

import dataclasses
import shutil
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scenarios
from scenarios import CatalogError, load_catalog
from scenarios.config import FIELDS

PACKAGED = Path(str(resources.files("scenarios")))


def test_healthy_config_is_the_course_model():
    config = scenarios.healthy_config()
    assert (config.vocab_size, config.d_model, config.n_heads, config.n_layers, config.d_ff) == (
        64, 64, 4, 2, 256)
    assert config.head_size == 16
    assert config.attention_mask == "causal"
    assert config.init_scale == 1.0
    assert config.lr_min == pytest.approx(config.lr_max / 10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.lr_max = 1.0  # type: ignore[misc]


def test_the_lab_breaks_override_one_knob_each():
    config = scenarios.healthy_config()
    breaks = scenarios.breaks()
    assert set(breaks) >= {"bad-init", "no-warmup", "broken-mask"}
    assert breaks["bad-init"].apply(config).init_scale == 100
    assert breaks["no-warmup"].apply(config).warmup_steps == 0
    assert breaks["broken-mask"].apply(config).attention_mask == "full"
    for brk in breaks.values():
        changed = {f for f in FIELDS if getattr(brk.apply(config), f) != getattr(config, f)}
        assert changed == set(brk.override)


def test_breaks_have_both_languages():
    for brk in scenarios.breaks().values():
        for lang in ("en", "es"):
            assert brk.title[lang] and brk.summary[lang] and brk.words[lang]
            reveal = brk.reveal[lang]
            assert reveal.changed and reveal.engine_differs and reveal.real_world
            assert reveal.panels


def test_replace_makes_a_broken_config():
    broken = dataclasses.replace(scenarios.healthy_config(), attention_mask="full")
    assert broken.attention_mask == "full"


@pytest.fixture
def catalog_dir(tmp_path):
    root = tmp_path / "scenarios"
    shutil.copytree(PACKAGED, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return root


def test_a_copied_catalog_loads_and_edits_take_effect(catalog_dir):
    path = catalog_dir / "healthy.toml"
    path.write_text(path.read_text().replace("steps = 400", "steps = 123"))
    assert load_catalog(catalog_dir).healthy.steps == 123


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(("file", "old", "new", "message"), [
    ("healthy.toml", "d_model = 64", "d_modle = 64",
     "scenarios/healthy.toml: [model] d_modle: unknown key"),
    ("healthy.toml", "lr_max = 2.85e-2", 'lr_max = "fast"',
     "scenarios/healthy.toml: [schedule] lr_max: expected a number > 0 (peak learning rate), "
     "got the text 'fast'"),
    ("healthy.toml", "n_layers = 2", "n_layers = 2.5",
     "scenarios/healthy.toml: [model] n_layers: expected a whole number >= 1 and <= 16 "
     "(transformer blocks), got 2.5"),
    ("healthy.toml", 'attention_mask = "causal"', 'attention_mask = "casual"',
     'scenarios/healthy.toml: [attention] attention_mask: expected one of "causal", "full" '
     "(which keys a query may see), got the text 'casual'"),
    ("healthy.toml", "batch_size = 32", "batch_size = true",
     "scenarios/healthy.toml: [training] batch_size: expected a whole number >= 1 and <= "
     "1024 (sequences per batch), got the boolean true"),
    ("healthy.toml", "d_model = 64", "d_model = 65536",
     "scenarios/healthy.toml: [model] d_model: expected a whole number >= 2 and <= 1024 "
     "(residual stream width C), got 65536"),
    ("healthy.toml", "vocab_size = 64", "vocab_size = 10",
     "scenarios/healthy.toml: [model] vocab_size: expected a whole number >= 35 and <= 512"),
    ("healthy.toml", "n_examples = 600", "n_examples = 100000",
     "scenarios/healthy.toml: batch_size: a training step would need about "),
    ("breaks/broken-mask/break.toml", 'en = ["broken-mask"', 'en = ["x\u01c2", "broken-mask"',
     "scenarios/breaks/broken-mask/break.toml: [words] en: 'xǂ' cannot be read by the grader: 'ǂ' "
     "(U+01C2) is the grader's own separator"),
    ("breaks/broken-mask/break.toml", 'en = ["broken-mask"', 'en = ["½ mask", "broken-mask"',
     "scenarios/breaks/broken-mask/break.toml: [words] en: '½ mask' cannot be read by the grader"),
    ("healthy.toml", "[model]\n", "[model]\ninit_scale = 2.0\n",
     "scenarios/healthy.toml: [model] init_scale: belongs in table [init]"),
    ("healthy.toml", "[init]", "[initialisation]",
     "scenarios/healthy.toml: [initialisation]: unknown table, expected one of model, init, "
     "optimizer, schedule, clipping, training, attention, corpus, dead_units"),
    ("healthy.toml", "warmup_steps = 12\n", "",
     "scenarios/healthy.toml: [schedule] warmup_steps: missing"),
    ("healthy.toml", "lr_min = 2.85e-3", "lr_min = 1.0",
     "scenarios/healthy.toml: lr_min: expected at most lr_max (0.0285), got 1"),
    ("healthy.toml", "n_heads = 4", "n_heads = 5",
     "scenarios/healthy.toml: d_model: expected a multiple of n_heads (5), got 64"),
    ("healthy.toml", "[model]", "[model",
     "scenarios/healthy.toml: malformed TOML: "),
    ("breaks/bad-init/break.toml", "init_scale = 100.0", "init_scael = 100.0",
     "scenarios/breaks/bad-init/break.toml: [override] init_scael: not a key of healthy.toml"),
    ("breaks/bad-init/break.toml", "init_scale = 100.0", 'init_scale = "big"',
     "scenarios/breaks/bad-init/break.toml: [override] init_scale: expected a number > 0 "
     "(multiplier on the Xavier std), got the text 'big'"),
    ("breaks/bad-init/break.toml", "init_scale = 100.0", "init_scale = 1.0",
     "scenarios/breaks/bad-init/break.toml: [override]: changes nothing, every value equals "
     "healthy.toml's"),
    ("breaks/no-warmup/break.toml", 'slug = "no-warmup"', 'slug = "bad-init"',
     "scenarios/breaks/no-warmup/break.toml: slug: 'bad-init' differs from its folder's "
     "name 'no-warmup'"),
    ("breaks/no-warmup/break.toml", 'slug = "no-warmup"', 'slug = "No Warmup"',
     "scenarios/breaks/no-warmup/break.toml: slug: expected lowercase words joined by hyphens, "
     "got 'No Warmup'"),
    ("breaks/no-warmup/break.toml", 'title = "No learning-rate warmup"\n', "",
     'scenarios/breaks/no-warmup/break.toml: title: missing, expected title = "<English '
     'text>"'),
    ("breaks/no-warmup/break.toml", 'title = "No learning-rate warmup"', 'title = " "',
     "scenarios/breaks/no-warmup/break.toml: title: expected non-empty text"),
    ("breaks/no-warmup/break.toml", "[reveal]\n", "[reveal]\nchanged_ = 1\n",
     "scenarios/breaks/no-warmup/break.toml: [reveal] changed_: unknown key, expected one of "
     "changed, panels, engine_differs, real_world"),
    ("breaks/no-warmup/break.toml", "[words]", "[wordz]",
     "scenarios/breaks/no-warmup/break.toml: wordz: unknown key, expected one of slug, "
     "healthy, title, summary, override, words, signature, reveal"),
    ("breaks/no-warmup/break.toml", 'slug = "no-warmup"', 'level = 1\nslug = "no-warmup"',
     "scenarios/breaks/no-warmup/break.toml: level: a break names no level; levels.toml lists each "
     "level's breaks (its deck)"),
    ("levels.toml", '"no-warmup", "broken-mask"]', '"no-warmup", "brokn-mask"]',
     "scenarios/levels.toml: level 1: deck: 'brokn-mask' is not a break of the catalog"),
    ("levels.toml", '"no-warmup", "broken-mask"]', '"no-warmup"]',
     "scenarios/levels.toml: level 1: deck: expected at least 3 breaks, found 2"),
    ("levels.toml", '"no-warmup", "broken-mask"]', '"no-warmup", "no-warmup", "broken-mask"]',
     "scenarios/levels.toml: level 1: deck: a slug is listed twice"),
    ("levels.toml", '"no-warmup", "broken-mask"]', '"no-warmup", "broken-mask", "healthy"]',
     "scenarios/levels.toml: level 1: deck: 'healthy' is the decoy; say decoy = true instead"),
    ("levels.toml", 'deal = "permutation"', 'deal = "shuffle"',
     "scenarios/levels.toml: level 1: deal: expected \"permutation\" or \"draw\", got 'shuffle'"),
    ("levels.toml", "decoy = false", "decoy = true",
     "scenarios/levels.toml: level 1: decoy: a permutation deals every entry, so the decoy "
     "would be in every scenario"),
    ("levels.toml", 'deal = "permutation"', 'deal = "permutation"\nruns = 2',
     "scenarios/levels.toml: level 1: runs: a permutation deals every break of the deck"),
    ("levels.toml", "runs = 3", "runs = 7",
     "scenarios/levels.toml: level 2: runs: expected a whole number from 1 to 6 (the deck's "
     "entries), got 7"),
    ("levels.toml", "number = 3", "number = 2",
     "scenarios/levels.toml: level 2: number: listed twice"),
    ("levels.toml", "number = 3", "number = 0",
     "scenarios/levels.toml: [[level]] number: expected a whole number from 1 to 99, got 0"),
    ("levels.toml", 'suffix = "-level-3"', 'suffix = "-level-2"',
     "scenarios/levels.toml: level 3: suffix: '-level-2' is level 2's too; each level needs "
     "folders of its own"),
    ("levels.toml", 'suffix = "-level-3"', 'suffix = "/../x"',
     "scenarios/levels.toml: level 3: suffix: expected \"\" or lowercase words each after a "
     "hyphen (\"-level-3\"), got '/../x'"),
    ("levels.toml", "in_title = false", "in_titel = false",
     "scenarios/levels.toml: level 1: 'in_titel': unknown key, expected one of number, name, "
     "deck, decoy, deal, runs, suffix, in_title"),
    ("levels.toml", 'es = "fallos nuevos" }', 'esp = "fallos nuevos" }',
     "scenarios/levels.toml: level 3: name: expected { en = \"...\", es = \"...\" }"),
    ("levels.toml", "[[level]]\nnumber = 1", "[[levels]]\nnumber = 1",
     "scenarios/levels.toml: 'levels': unknown key, expected [[level]] tables only"),
    ("breaks/small-init/break.toml", "en = [", 'en = ["big init", ',
     "scenarios/levels.toml: level 2: small-init's word 'big init' (en) reads as big-init, "
     "another break of this level; give it words of its own"),
    ("breaks/no-warmup/break.toml", 'slug = "no-warmup"', 'slug = "healthy"',
     'scenarios/breaks/no-warmup/break.toml: slug: "healthy" is the slug of the healthy decoy '
     "(healthy = true) and of nothing else"),
    ("breaks/broken-mask/break.toml", 'en = ["broken-mask"', 'en = [3, "broken-mask"',
     "scenarios/breaks/broken-mask/break.toml: [words] en: expected a list of non-empty phrases"),
    ("breaks/broken-mask/break.toml", "[reveal.panels]\n1 =", "[reveal.panels]\n7 =",
     "scenarios/breaks/broken-mask/break.toml: [reveal] panels.7: expected a panel number 1-6"),
    ("breaks/broken-mask/break.toml", "signature = [1, 6]", "signature = [1, 9]",
     "scenarios/breaks/broken-mask/break.toml: signature: 9 is not a panel number 1-6"),
    ("breaks/broken-mask/break.toml", "signature = [1, 6]", "signature = [1, 1]",
     "scenarios/breaks/broken-mask/break.toml: signature: expected a list of distinct panel "
     "numbers"),
    ("breaks/broken-mask/break.toml", "signature = [1, 6]\n", "",
     "scenarios/breaks/broken-mask/break.toml: signature: expected a list of distinct panel "
     "numbers"),
    ("breaks/broken-mask/break.toml", '\n6 = "Copying', '\n# 6 = "Copying',
     "scenarios/breaks/broken-mask/break.toml: signature: panel 6 has no text in "
     "[reveal.panels]"),
    ("breaks/broken-mask/claims.toml", "dead_heads_end_excess|pos", "dead_heads_end_excess|most",
     "scenarios/breaks/broken-mask/claims.toml: page: 'broken-mask|dead_heads_end_excess|"
     "most': the kind is one of range, "),
    ("breaks/broken-mask/claims.toml", "[panels]\n6 =",
     "[panels]\n2 = [\"reference|loss0|n\"]\n7 =",
     "scenarios/breaks/broken-mask/claims.toml: [panels] '7': the reveal has no text for that "
     "panel (expected one of 1, 2, 3, 4, 5, 6)"),
    ("breaks/broken-mask/claims.toml", "page =", "pages =",
     "scenarios/breaks/broken-mask/claims.toml: 'pages': unknown key, expected one of summary, "),
    ("breaks/broken-mask/claims.toml", "page = [", "page = [\"reference|loss0\", ",
     "scenarios/breaks/broken-mask/claims.toml: page: 'reference|loss0': expected "
     '"run|figure|kind"'),
])
def test_every_typo_is_one_line_naming_file_and_key(catalog_dir, file, old, new, message):
    edit(catalog_dir / file, old, new)
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(message), text


def test_not_utf8_and_too_few_breaks(catalog_dir):
    (catalog_dir / "breaks" / "bad-init" / "break.toml").write_bytes(b"\xff\xfe slug")
    with pytest.raises(CatalogError,
                       match=r"bad-init/break\.toml: not a catalog file \(not UTF-8 text\)"):
        load_catalog(catalog_dir)
    shutil.rmtree(catalog_dir / "breaks" / "bad-init")
    with pytest.raises(CatalogError, match=r"^scenarios/levels.toml: level 1: deck: 'bad-init' "
                                           r"is not a break of the catalog$"):
        load_catalog(catalog_dir)
    (catalog_dir / "levels.toml").unlink()
    with pytest.raises(CatalogError, match=r"^scenarios/levels.toml: missing"):
        load_catalog(catalog_dir)


def test_a_fourth_break_is_just_a_folder(catalog_dir):
    text = (catalog_dir / "breaks" / "no-warmup" / "break.toml").read_text(encoding="utf-8")
    text = text.replace('slug = "no-warmup"', 'slug = "zz-higher-lr"').replace(
        "warmup_steps = 0", "lr_max = 0.3")
    (catalog_dir / "breaks" / "zz-higher-lr").mkdir()
    (catalog_dir / "breaks" / "zz-higher-lr" / "break.toml").write_text(text, encoding="utf-8")
    catalog = load_catalog(catalog_dir)
    assert list(catalog.breaks)[-1] == "zz-higher-lr"
    assert catalog.breaks["zz-higher-lr"].apply(catalog.healthy).lr_max == 0.3
    assert catalog.breaks["zz-higher-lr"].folder.name == "zz-higher-lr"


def test_a_break_folder_is_named_after_its_slug_and_holds_its_data(catalog_dir):
    breaks = catalog_dir / "breaks"
    (breaks / "no-warmup").rename(breaks / "no-warm")
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    assert str(caught.value) == (
        "scenarios/breaks/no-warm/break.toml: slug: 'no-warmup' differs from its folder's "
        "name 'no-warm'; a break's folder is named after its slug")
    (breaks / "no-warm" / "break.toml").rename(breaks / "no-warmup.toml")
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    assert str(caught.value) == ("scenarios/breaks/no-warm/break.toml: missing (a break folder "
                                 "holds its break.toml and signature.py)")
    shutil.rmtree(breaks / "no-warm")  # its catalog (locale/), claims and figures with it
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    assert str(caught.value) == ("scenarios/breaks/no-warmup.toml: a break is a folder: move it "
                                 "to scenarios/breaks/no-warmup/break.toml")


toml_values = st.one_of(
    st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.booleans(), st.lists(st.integers(), max_size=3))


@given(key=st.one_of(st.sampled_from(sorted(FIELDS)), st.text(min_size=1, max_size=12)),
       value=toml_values)
def test_random_overrides_load_or_are_refused_cleanly(key, value):
    healthy = scenarios.healthy_config()
    brk = dict(scenarios.breaks()["no-warmup"].__dict__)
    data = {"slug": "x", "title": brk["title"], "summary": brk["summary"],
            "override": {key: value}, "words": {k: list(v) for k, v in brk["words"].items()},
            "signature": [int(n) for n in brk["signature"]],
            "reveal": {lang: {"changed": r.changed, "panels": dict(r.panels),
                              "engine_differs": r.engine_differs, "real_world": r.real_world}
                       for lang, r in brk["reveal"].items()}}
    from scenarios.catalog import parse_break
    try:
        parsed = parse_break(data, "x.toml", healthy)
    except CatalogError as err:
        assert str(err).startswith("x.toml: ")
        assert "\n" not in str(err)
    else:
        broken = parsed.apply(healthy)
        assert getattr(broken, key) == value


def test_the_deck_has_three_levels_each_its_own_slugs():
    deck = {level.number: scenarios.breaks(level.number) for level in scenarios.all_levels()}
    assert list(deck) == [1, 2, 3]
    assert set(deck[1]) == {"bad-init", "no-warmup", "broken-mask"}
    assert scenarios.breaks() == deck[1]                 # the lab's deck unless asked
    assert len(deck[2]) >= 3 and len([b for b in deck[3].values() if not b.healthy]) >= 4
    everything = scenarios.breaks(None)
    assert set(everything) == {s for d in deck.values() for s in d}
    shared = [s for s in everything if sum(s in d for d in deck.values()) > 1]
    assert shared == [scenarios.HEALTHY]  # only the decoy belongs to two decks
    for level, breaks in deck.items():
        assert all(level in b.levels for b in breaks.values())


def test_the_healthy_decoy_is_data_of_levels_2_and_3_with_words_in_both_languages():
    decoy = scenarios.breaks(3)[scenarios.HEALTHY]
    assert scenarios.breaks(2)[scenarios.HEALTHY] is decoy and decoy.levels == (2, 3)
    assert decoy.healthy and decoy.override == {} and decoy.signature == ()
    config = scenarios.healthy_config()
    assert decoy.apply(config) == config
    assert "healthy" in decoy.words["en"] and "sano" in decoy.words["es"]
    assert not any(b.healthy for b in scenarios.breaks(1).values())


def test_levels_toml_alone_says_which_breaks_a_level_deals():
    """Every level is one entry: no break file names a level, and each break's `levels` are
    read from the decks of levels.toml."""
    import tomllib

    for path in sorted((PACKAGED / "breaks").glob("*/break.toml")):
        assert "level" not in tomllib.loads(path.read_text(encoding="utf-8")), path.name
    levels = scenarios.all_levels()
    for brk in scenarios.breaks(None).values():
        assert brk.levels == tuple(lv.number for lv in levels if brk.slug in lv.slugs)
    assert [lv.name["en"] for lv in levels] == [
        "the lab", "a pool of subtle breaks and their mirrors", "new bugs"]
    assert [(lv.deal, lv.runs, lv.suffix, lv.in_title) for lv in levels] == [
        ("permutation", 3, "", False), ("draw", 3, "-level-2", True),
        ("draw", 3, "-level-3", True)]


def test_a_decoy_with_an_override_is_refused(catalog_dir):
    path = catalog_dir / "breaks" / "healthy" / "break.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n[override]\ninit_scale = 2.0\n",
                    encoding="utf-8")
    with pytest.raises(CatalogError, match=r"healthy/break.toml: \[override\]: the healthy decoy "
                                           r"changes nothing, expected none"):
        load_catalog(catalog_dir)


def test_each_new_knob_is_validated(catalog_dir):
    path = catalog_dir / "healthy.toml"
    edit(path, 'mask_leak = "none"', 'mask_leak = "two-heads"')
    with pytest.raises(CatalogError, match=r'\[attention\] mask_leak: expected one of "none", '
                                           r'"one-head", "one-layer"'):
        load_catalog(catalog_dir)
    edit(path, 'mask_leak = "two-heads"', 'mask_leak = "none"')
    edit(path, "frozen_layers = 0", "frozen_layers = 3")
    with pytest.raises(CatalogError, match=r"frozen_layers: expected at most n_layers \(2\)"):
        load_catalog(catalog_dir)


def test_a_whatif_table_is_checked(catalog_dir):
    path = catalog_dir / "breaks" / "bad-init" / "break.toml"
    text = path.read_text(encoding="utf-8")
    assert load_catalog(catalog_dir).breaks["bad-init"].whatif.doses == (1.0, 3.0, 10.0, 30.0,
                                                                          100.0)
    for table, message in [('field = "init_scale"\ndoses = [1.0]', "a list of 2 to 6"),
                           ('field = "nope"\ndoses = [1.0, 2.0]', "a key of healthy.toml"),
                           ('field = "init_scale"\ndoses = [1.0, -2.0]', "doses: init_scale"),
                           ('field = "init_scale"\ndoses = [1.0, 1.0]', "repeated"),
                           ('field = "init_scale"\ndoses = [1.0, 3.0]\nshow = ["h.9.attn.c_attn"]',
                            "not a series of a 2-block model"),
                           ('field = "init_scale"\ndoses = [1.0, 3.0]\nshow = ["wte", "wte"]',
                            "a series is repeated"),
                           ('field = "init_scale"\ndoses = [1.0, 3.0]\nshow = "wte"',
                            "a list of 1 to 8 series"),
                           ('field = "init_scale"\ndoses = [1.0, 3.0]\npanels = [5]',
                            "expected field")]:
        path.write_text(text.replace(text[text.index("\n[whatif]"):text.index("\n[words]")],
                                     f"\n[whatif]\n{table}\n"), encoding="utf-8")
        with pytest.raises(CatalogError, match=message):
            load_catalog(catalog_dir)
