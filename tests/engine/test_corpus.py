"""The built-in corpus: its table, vocabulary, sizes, entropy floor, split and batches."""

import dataclasses
import math

import numpy as np
import pytest

from diagnose.engine.corpus import (
    BOS,
    EOS,
    IGNORE,
    PAD_ID,
    build_corpus,
    english,
    probe_batch,
    spanish,
    table,
)


@pytest.fixture(scope="module")
def corpus(healthy):
    return build_corpus(healthy)


def test_table_cells_are_distinct_and_english_follows_from_spanish():
    cells = table()
    assert len(cells) == 14 * 6 * 3 == len(set(cells))
    halves = [cell.split("=") for cell in cells]
    spanish_halves = [es for es, _ in halves]
    assert len(set(spanish_halves)) == len(cells)        # the Spanish names the cell ...
    english_halves = {en for _, en in halves}
    assert len(english_halves) > 200                      # ... and the English varies with it


def test_some_conjugations():
    assert spanish("comer", "preterite", 1) == "tú comiste"
    assert english("comer", "preterite", 1) == "you ate"
    assert spanish("ser", "present", 0) == "yo soy" and english("ser", "present", 2) == "he is"
    assert spanish("hacer", "perfect", 2) == "él ha hecho"
    assert english("hacer", "perfect", 2) == "he has made"
    assert spanish("venir", "conditional", 0) == "yo vendría"
    assert spanish("hablar", "imperfect", 1) == "tú hablabas"
    assert english("vivir", "present", 2) == "he lives"


def test_vocabulary(corpus, healthy):
    assert len(corpus.vocab) <= 64 and len(corpus.vocab) <= healthy.vocab_size
    assert corpus.vocab[PAD_ID] == "<pad>"
    assert len(set(corpus.vocab)) == len(corpus.vocab)
    text = BOS + "tú comiste=you ate" + EOS
    ids = corpus.encode(text)
    assert len(ids) == len("tú comiste=you ate") + 2
    assert corpus.decode(ids) == text


def test_every_example_fits_the_context(corpus, healthy):
    assert int(corpus.lengths.max()) <= healthy.context
    assert all(len(ids) <= healthy.context for ids in corpus.train + corpus.val)
    assert all(ids[0] == corpus.encode(BOS)[0] and ids[-1] == corpus.encode(EOS)[0]
               for ids in corpus.train + corpus.val)


def test_entropy_floor_is_ln_cells_over_mean_targets(corpus):
    # Each example carries ln(252) nats; the loss averages over the targets, which are all
    # the tokens after <bos>: the characters and <eos>, i.e. len(text) + 1.
    mean_targets = np.mean([len(cell) + 1 for cell in table()])
    assert corpus.entropy_floor == pytest.approx(math.log(252) / mean_targets, rel=1e-12)
    assert 0.24 < corpus.entropy_floor < 0.27


def test_split_is_deterministic_and_by_example(healthy):
    a = build_corpus(healthy)
    b = build_corpus(dataclasses.replace(healthy, init_scale=100.0))   # a break: same corpus
    assert a is b
    assert (len(a.train), len(a.val)) == (510, 90)
    other = build_corpus(dataclasses.replace(healthy, corpus_seed=healthy.corpus_seed + 1))
    assert other.val != a.val
    assert other.entropy_floor == a.entropy_floor


def test_a_too_small_context_is_refused(healthy):
    with pytest.raises(ValueError, match="context"):
        build_corpus(dataclasses.replace(healthy, context=20))


def test_batches_pad_to_the_longest_and_ignore_pads(corpus, healthy):
    stream = corpus.batches("train", healthy.batch_size, np.random.default_rng(0))
    for _ in range(3):
        x, y = next(stream)
        assert x.shape == y.shape and x.shape[0] == healthy.batch_size
        lengths = (x != PAD_ID).sum(1)
        assert x.shape[1] == lengths.max()                      # padded to the longest
        assert np.array_equal(y == IGNORE, x == PAD_ID)          # targets ignored at the pads
        shifted = x[:, 1:] != PAD_ID                             # y is x shifted by one
        assert np.array_equal(y[:, :-1][shifted], x[:, 1:][shifted])
        last = lengths - 1
        assert np.all(y[np.arange(len(x)), last] == corpus.encode(EOS)[0])


def test_an_epoch_sees_every_training_example_once(corpus):
    B = 30
    stream = corpus.batches("train", B, np.random.default_rng(1))
    seen = [tuple(row[row != PAD_ID]) for _ in range(len(corpus.train) // B)
            for row in next(stream)[0]]
    expected = [tuple(ids[:-1]) for ids in corpus.train]
    assert sorted(seen) == sorted(expected)


def test_probe_batch_is_fixed_and_from_val(healthy, corpus):
    x, y = probe_batch(healthy)
    assert x.shape[0] == healthy.probe_examples
    again, _ = probe_batch(healthy)
    assert np.array_equal(x, again)
    val_x, _ = corpus.split("val")
    assert np.array_equal(x, val_x[:healthy.probe_examples, :x.shape[1]])
