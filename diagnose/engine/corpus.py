"""The built-in corpus: Spanish→English verb conjugations, one example per row.

Every example is one cell of a finite table, `<bos>tú comiste=you ate<eos>`: a person (yo, tú,
él), a tense (present, preterite, imperfect, future, conditional, perfect) and a verb (regular
and irregular), 14 × 6 × 3 = 252 cells whose texts are all distinct. Examples are drawn
uniformly from the table with `config.corpus_seed`, so the corpus is the same for every run of
every scenario, and split by example into train and val (val follows the same distribution).

The English half is a function of the Spanish half (the person, the verb and the tense are all
read from it), so a model must attend back across `=` to predict it: a healthy model needs its
heads. Because each example's text identifies its cell, the exact entropy of an example is
ln(252) nats; the loss averages over target tokens (every token after `<bos>`, `<eos>`
included), so the floor no honest model beats is ln(252) / (mean targets per example).

Character level: id 0 is the pad (never a target, masked as a key), then `<bos>`, `<eos>`,
and the characters in sorted order. Nothing here knows about models or numbers of steps.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import numpy as np

PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"
PAD_ID = 0  # x at padding; targets there are IGNORE
IGNORE = -1  # a target that the loss skips

PERSONS = ("yo", "tú", "él")
EN_PERSONS = ("I", "you", "he")
TENSES = ("present", "preterite", "imperfect", "future", "conditional", "perfect")
HABER = ("he", "has", "ha")  # the perfect's auxiliary: yo he, tú has, él ha

# Regular endings by infinitive class; future and conditional add theirs to the infinitive.
ENDINGS = {
    "ar": {"present": ("o", "as", "a"), "preterite": ("é", "aste", "ó"),
           "imperfect": ("aba", "abas", "aba"), "participle": "ado"},
    "er": {"present": ("o", "es", "e"), "preterite": ("í", "iste", "ió"),
           "imperfect": ("ía", "ías", "ía"), "participle": "ido"},
    "ir": {"present": ("o", "es", "e"), "preterite": ("í", "iste", "ió"),
           "imperfect": ("ía", "ías", "ía"), "participle": "ido"},
}
FUTURE = ("é", "ás", "á")
CONDITIONAL = ("ía", "ías", "ía")

# infinitive: (English base, 3rd singular, past, past participle), then the Spanish forms that
# break the rules: present/preterite/imperfect as (yo, tú, él), "stem" for future and
# conditional, "participle".
VERBS: dict[str, tuple[tuple[str, str, str, str], dict[str, object]]] = {
    "hablar": (("speak", "speaks", "spoke", "spoken"), {}),
    "cantar": (("sing", "sings", "sang", "sung"), {}),
    "comer": (("eat", "eats", "ate", "eaten"), {}),
    "beber": (("drink", "drinks", "drank", "drunk"), {}),
    "vivir": (("live", "lives", "lived", "lived"), {}),
    "abrir": (("open", "opens", "opened", "opened"), {"participle": "abierto"}),
    "ser": (("be", "is", "was", "been"), {
        "present": ("soy", "eres", "es"), "preterite": ("fui", "fuiste", "fue"),
        "imperfect": ("era", "eras", "era")}),
    "tener": (("have", "has", "had", "had"), {
        "present": ("tengo", "tienes", "tiene"), "preterite": ("tuve", "tuviste", "tuvo"),
        "stem": "tendr"}),
    "hacer": (("make", "makes", "made", "made"), {
        "present": ("hago", "haces", "hace"), "preterite": ("hice", "hiciste", "hizo"),
        "stem": "har", "participle": "hecho"}),
    "decir": (("say", "says", "said", "said"), {
        "present": ("digo", "dices", "dice"), "preterite": ("dije", "dijiste", "dijo"),
        "stem": "dir", "participle": "dicho"}),
    "ver": (("see", "sees", "saw", "seen"), {
        "present": ("veo", "ves", "ve"), "preterite": ("vi", "viste", "vio"),
        "imperfect": ("veía", "veías", "veía"), "participle": "visto"}),
    "venir": (("come", "comes", "came", "come"), {
        "present": ("vengo", "vienes", "viene"), "preterite": ("vine", "viniste", "vino"),
        "stem": "vendr"}),
    "poner": (("put", "puts", "put", "put"), {
        "present": ("pongo", "pones", "pone"), "preterite": ("puse", "pusiste", "puso"),
        "stem": "pondr", "participle": "puesto"}),
    "saber": (("know", "knows", "knew", "known"), {
        "present": ("sé", "sabes", "sabe"), "preterite": ("supe", "supiste", "supo"),
        "stem": "sabr"}),
}


def spanish(verb: str, tense: str, person: int) -> str:
    """The Spanish form with its pronoun: spanish("comer", "preterite", 1) == "tú comiste"."""
    irregular = VERBS[verb][1]
    root, kind = verb[:-2], verb[-2:]
    if tense in ("present", "preterite", "imperfect"):
        forms = irregular.get(tense)
        form = forms[person] if forms else root + ENDINGS[kind][tense][person]
    elif tense in ("future", "conditional"):
        stem = irregular.get("stem", verb)
        form = stem + (FUTURE if tense == "future" else CONDITIONAL)[person]
    else:
        participle = irregular.get("participle", root + ENDINGS[kind]["participle"])
        form = f"{HABER[person]} {participle}"
    return f"{PERSONS[person]} {form}"


def english(verb: str, tense: str, person: int) -> str:
    """The English translation: english("comer", "preterite", 1) == "you ate"."""
    base, third, past, participle = VERBS[verb][0]
    subject = EN_PERSONS[person]
    if verb == "ser" and tense in ("present", "preterite"):
        form = {"present": ("am", "are", "is"), "preterite": ("was", "were", "was")}[tense][person]
    elif tense == "present":
        form = third if person == 2 else base
    elif tense == "preterite":
        form = past
    elif tense == "imperfect":
        form = f"used to {base}"
    elif tense == "future":
        form = f"will {base}"
    elif tense == "conditional":
        form = f"would {base}"
    else:
        form = f"{'has' if person == 2 else 'have'} {participle}"
    return f"{subject} {form}"


def table() -> tuple[str, ...]:
    """Every cell's text between the markers, in a fixed order (verb, tense, person)."""
    return tuple(f"{spanish(v, t, p)}={english(v, t, p)}"
                 for v in VERBS for t in TENSES for p in range(len(PERSONS)))


class Corpus:
    """The table, its vocabulary, the drawn examples split in train/val, and batching.

    `train` and `val` hold each example's token ids, markers included. A batch row is one
    example: x = ids[:-1], y = ids[1:], padded to the batch's longest with x = PAD_ID and
    y = IGNORE.
    """

    pad_id = PAD_ID

    def __init__(self, cells: tuple[str, ...], draws: np.ndarray, n_val: int,
                 target_shift: int = 1) -> None:
        chars = sorted({ch for text in cells for ch in text})
        self.vocab: tuple[str, ...] = (PAD, BOS, EOS, *chars)   # id -> symbol, PAD_ID first
        self._ids = {symbol: i for i, symbol in enumerate(self.vocab)}
        self.cells = cells
        encoded = [self.encode(BOS + text + EOS) for text in cells]
        self.lengths = np.array([len(ids) for ids in encoded])  # per cell, markers included
        self.lengths.flags.writeable = False
        examples = [encoded[i] for i in draws]
        self.val: list[list[int]] = examples[:n_val]
        self.train: list[list[int]] = examples[n_val:]
        # Each example's text names its cell, so an example carries exactly ln(cells) nats,
        # spread over its targets: every token after <bos>.
        self.entropy_floor = math.log(len(cells)) / float(np.mean(self.lengths - 1))
        self.target_shift = target_shift
        self._rows = {split: self._pack(getattr(self, split), target_shift)
                      for split in ("train", "val")}

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; the markers <bos>, <eos>, <pad> are one token each."""
        ids, i = [], 0
        while i < len(text):
            for marker in (BOS, EOS, PAD):
                if text.startswith(marker, i):
                    ids.append(self._ids[marker])
                    i += len(marker)
                    break
            else:
                ids.append(self._ids[text[i]])
                i += 1
        return ids

    def decode(self, ids) -> str:
        return "".join(self.vocab[int(i)] for i in ids)

    @staticmethod
    def _pack(examples: list[list[int]],
              target_shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every example's (x, y) row, padded to the split's longest, and its target count.
        y is x shifted by `target_shift`: the next token (1), or x itself (0, the break)."""
        width = max(len(ids) for ids in examples) - 1
        xs = np.full((len(examples), width), PAD_ID, dtype=np.int64)
        ys = np.full((len(examples), width), IGNORE, dtype=np.int64)
        for row, ids in enumerate(examples):
            xs[row, :len(ids) - 1] = ids[:-1]
            ys[row, :len(ids) - 1] = ids[target_shift:len(ids) - 1 + target_shift]
        n_targets = np.array([len(ids) - 1 for ids in examples])
        for array in (xs, ys, n_targets):
            array.flags.writeable = False      # shared by every run (the corpus is cached)
        return xs, ys, n_targets

    def batch(self, split: str, rows) -> tuple[np.ndarray, np.ndarray]:
        """The examples `rows` of `split` as (x, y), each (B, T) with T the longest's targets."""
        xs, ys, n_targets = self._rows[split]
        rows = np.asarray(rows)
        T = int(n_targets[rows].max())
        return xs[rows, :T], ys[rows, :T]

    def batches(self, split: str, batch_size: int,
                rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """An endless stream of (x, y) batches: shuffled epochs, each example once per epoch.

        A batch that straddles two epochs takes the rest of one and the start of the next.
        """
        n = len(getattr(self, split))
        queue = np.empty(0, dtype=np.int64)
        while True:
            while len(queue) < batch_size:
                queue = np.concatenate([queue, rng.permutation(n)])
            rows, queue = queue[:batch_size], queue[batch_size:]
            yield self.batch(split, rows)

    def split(self, split: str) -> tuple[np.ndarray, np.ndarray]:
        """A whole split as one padded batch (the validation loss is its mean)."""
        return self.batch(split, np.arange(len(getattr(self, split))))


@functools.cache
def _build(n_examples: int, val_fraction: float, corpus_seed: int,
           target_shift: int) -> Corpus:
    cells = table()
    draws = np.random.default_rng(corpus_seed).integers(0, len(cells), size=n_examples)
    n_val = max(1, round(n_examples * val_fraction))
    return Corpus(cells, draws, n_val, target_shift)


def build_corpus(config) -> Corpus:
    """The corpus of `config` (cached): depends only on n_examples, val_fraction, corpus_seed
    and target_shift.

    Raises ValueError when the config's vocabulary or context cannot hold it.
    """
    corpus = _build(config.n_examples, config.val_fraction, config.corpus_seed,
                    config.target_shift)
    if len(corpus.vocab) > config.vocab_size:
        raise ValueError(f"the corpus needs {len(corpus.vocab)} symbols, "
                         f"vocab_size is {config.vocab_size}")
    if int(corpus.lengths.max()) > config.context:
        raise ValueError(f"the longest example has {int(corpus.lengths.max())} tokens, "
                         f"context is {config.context}")
    return corpus


def probe_batch(config) -> tuple[np.ndarray, np.ndarray]:
    """The fixed batch the dead-unit probes read: the first `probe_examples` of val."""
    corpus = build_corpus(config)
    return corpus.batch("val", np.arange(min(config.probe_examples, len(corpus.val))))
