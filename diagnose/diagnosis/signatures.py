"""A break's own code: the `Signature` class its folder's `signature.py` derives, and its loader.

A break is a folder, `scenarios/breaks/<slug>/`: `break.toml` holds its data (the catalog reads
it) and `signature.py` one subclass of `Signature` holding that break's code and nothing else:

- `vote(fig)`: how strongly its signature shows in a run's figures, in decades (log10) past a
  threshold (<= 0: absent), so the diagnostician can weigh breaks against each other;
- `findings(fig, header)`: the numbers that speak for it, each a sentence the catalogs
  translate (`said`: the English is the message; the break's own catalog,
  `<slug>/locale/<lang>/LC_MESSAGES/break.po`, holds the others, and the game's
  `scenarios/locale/` those of the shared sentences below);
- `computed(fig, run, reference, header)`: the fidelity promises that need the run, the
  reference or the header; the others are data, break.toml's `[[promises]]` (bounds on
  figures, `scenarios.promises`), and `checks` lists them all in that table's order, each
  `computed = "<name>"` entry placing the computed promise of that name (a class may still
  override `checks` whole, as course decks written before `[[promises]]` do);
- `needs`: the recorded fields (step keys, "entropy_floor") its vote reads, for `diagnose check`.

The figures are `diagnose.diagnosis.figures.figures`'s (one definition of each number); the helpers
below (`over`, `under`, `check`, `said`, the `SHARED` sentences and the promises several breaks
keep) are here once, and so are the shapes mirror breaks share (`InitScale`, `FloorLeak`,
`LrPeak`, `WarmupStart`): a break derives one and writes only what is its own. A folder's
code runs only where `diagnose` loads it (the instructor's or the player's machine): `scenarios`
and `grading` never import it, and the Gradescope zip carries `break.toml` alone. A course's own
deck (`DIAGNOSE_DECK`) is loaded by the same code and says its findings the same way, from its
own folder's catalog (a `Finding` may still carry a plain `{"en": ..., "es": ...}`, as decks
wrote them before; a language no catalog has says the English). stdlib only, like the
diagnostician.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import math
import numbers
import string
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from diagnose.diagnosis.figures import figure_names
from diagnose.moved import is_old_path
from diagnose.phrases import Figure, Phrase, Pn_
from scenarios import Break, CatalogError
from scenarios.escape import escape
from scenarios.promises import COMPUTED, PromiseSpec
from scenarios.words import GAME, N_, Nn_

SIGNATURE_FILE = "signature.py"
Records = Sequence[dict[str, Any]]
Figures = dict[str, float]
FROZEN_MOVE = 0.003  # a matrix whose largest singular value moved less over the run is frozen


@dataclass(frozen=True)
class Finding:
    """One number that weighed in the verdict, with its sentence in each language (a `Phrase`
    of the catalogs, or a course deck's own dict)."""

    panel: int
    name: str
    value: float
    text: Mapping[str, str]


@dataclass(frozen=True)
class Promise:
    """One fidelity promise on one run: its figure and whether it held."""

    name: str
    passed: bool
    value: float
    wanted: str
    rate: float = 1  # the share of seeds it must hold on ([[promises]] rate): 1 every seed


class Signature:
    """One break's reading of the panels. Subclass it once in the break's `signature.py`.

    A course deck's code is guarded (`_guarded`): whatever its `vote`, `findings`, `computed`
    or `checks` raise (`sys.exit` included), or a result of another kind, is one
    `CatalogError` line naming its `signature.py`, at any stage (deal, reveal, check)."""

    needs: tuple[str, ...] = ()  # recorded fields its vote reads: step keys, "entropy_floor"

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        for name in GUARDED:
            if name in cls.__dict__:
                setattr(cls, name, _guarded(name, cls.__dict__[name]))

    def __init__(self, brk: Break) -> None:
        self.brk = brk  # its break.toml, for thresholds that follow its own override
        # its findings' words: its folder's catalog, the game's behind it (a shared sentence)
        self.translations = (brk.translations.behind(GAME) if brk.translations is not None
                             else GAME)

    def vote(self, fig: Figures) -> float:
        """How strongly the signature shows, in decades past its threshold (<= 0: absent)."""
        raise NotImplementedError

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        """The run's numbers that speak for this break, the most telling first."""
        raise NotImplementedError

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Promise]:
        """The promises the break keeps, for `run` against `reference`: its break.toml's
        `[[promises]]` in order, a `computed` entry taken from `computed`, each with the share
        of seeds it must hold on (its `rate`: 1 every seed, less for a "usually")."""
        made = {p.name: p for p in self.computed(fig, run, reference, header)}
        placed = {spec.name for spec in self.brk.promises if spec.comparison == COMPUTED}
        for name in (placed - set(made)) & set(EVERY_BREAKS):
            made[name] = EVERY_BREAKS[name](run, reference)
        unmade, unplaced = sorted(placed - set(made)), sorted(set(made) - placed)
        if unmade:
            raise CatalogError(f'{self.brk.source}: [[promises]] computed = "{unmade[0]}": '
                               f"{SIGNATURE_FILE} computes no promise of that name")
        if unplaced:
            raise CatalogError(f"{self.brk.source}: [[promises]]: {SIGNATURE_FILE} computes "
                               f'{unplaced[0]}, which no entry places (computed = "{unplaced[0]}")')
        return [dataclasses.replace(made[spec.name] if spec.comparison == COMPUTED
                                    else promised(fig, spec), rate=spec.rate)
                for spec in self.brk.promises]

    def computed(self, fig: Figures, run: Records, reference: Records,
                 header: dict[str, Any]) -> list[Promise]:
        """The promises that need the run, the reference or the header, not a bound on a
        figure alone; break.toml places each by its name (`computed = "<name>"`). Those of
        `EVERY_BREAKS` need no code: any break.toml may place them."""
        return []


def _vote_kind(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _list_of(kind: type) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list | tuple) and all(
        isinstance(v, kind) for v in value)


GUARDED: dict[str, Callable[[Any], bool]] = {
    "vote": _vote_kind, "findings": _list_of(Finding), "computed": _list_of(Promise),
    "checks": _list_of(Promise)}


def _guarded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` of a signature class, made to end in one line when a course deck's code
    raises, exits or answers with the wrong kind; the package's own code is left to fail
    loudly (a bug of ours, found by the suite)."""

    def guarded(self: Signature, *args: Any) -> Any:  # a signature's methods: positional
        result = _checked(self, name, method, args)
        return _in_its_words(self, result) if name == "findings" else result

    guarded.__name__, guarded.__doc__ = method.__name__, method.__doc__
    return guarded


def _in_its_words(signature: Signature, found: list[Finding]) -> list[Finding]:
    """Each finding said from its break's own catalog (`said` cannot know the break): a
    `Phrase` of the game's catalog, `within` the break's, the game's behind it."""
    return [dataclasses.replace(f, text=f.text.within(signature.translations))
            if isinstance(f.text, Phrase) and f.text.translations is GAME else f
            for f in found]


def _checked(self: Signature, name: str, method: Callable[..., Any], args: tuple[Any, ...]
             ) -> Any:
    """`method`'s result; a course deck's code guarded (see `_guarded`)."""
    if not self.brk.course:
        return method(self, *args)
    shown = self.brk.source.rsplit("/", 1)[0] + "/" + SIGNATURE_FILE
    try:
        result = method(self, *args)
    except CatalogError:
        raise
    except (Exception, SystemExit) as err:  # noqa: BLE001 - a course's code, any mistake
        raise CatalogError(f"{shown}: {type(self).__name__}.{name} failed: "
                           f"{type(err).__name__}: {escape(str(err))[:200]}") from None
    if not GUARDED[name](result):
        raise CatalogError(f"{shown}: {type(self).__name__}.{name} returned "
                           f"{type(result).__name__}, not what a signature's {name} "
                           "returns")
    return result


# --- what votes are made of --------------------------------------------------------------

def over(value: float, threshold: float) -> float:
    """Decades by which `value` passes `threshold` upward (NaN: -1, absent)."""
    if math.isnan(value):
        return -1.0
    if math.isinf(value):
        return 3.0 if value > 0 else -3.0
    return math.log10(max(value, 1e-12) / threshold)


def under(value: float, threshold: float) -> float:
    """Decades by which `value` passes `threshold` downward (NaN: -1, absent)."""
    return -over(value, threshold) if not math.isnan(value) else -1.0


def unless(excluded: bool, vote: float) -> float:
    """A vote that another panel's plain fact rules out (Panel 2 differs, a line is flat)."""
    return -1.0 if excluded else vote


def lr_differs(fig: Figures) -> bool:
    """Panel 2's peak is not the reference's."""
    return not fig["lr_peak_ratio"] < 1.5


def frozen(fig: Figures) -> bool:
    """Panel 5: a line did not move at all over the run."""
    return fig["least_moved"] < FROZEN_MOVE


def early_floor(fig: Figures) -> bool:
    """Panel 1: the validation loss is below the entropy floor at the first evaluation."""
    return fig["first_val_floor_ratio"] < 1.0


# --- what checks are made of -------------------------------------------------------------

def check(name: str, value: float, ok: bool, wanted: str) -> Promise:
    """A promise: `ok` on a figure that is a number (NaN never passes)."""
    return Promise(name, bool(ok) and not math.isnan(value), value, wanted)


def at_least(fig: Figures, name: str, bound: float, wanted: str) -> Promise:
    """The promise that figure `name` is `bound` or more."""
    return check(name, fig[name], fig[name] >= bound, wanted)


def at_most(fig: Figures, name: str, bound: float, wanted: str) -> Promise:
    """The promise that figure `name` is `bound` or less."""
    return check(name, fig[name], fig[name] <= bound, wanted)


def above(fig: Figures, name: str, bound: float, wanted: str) -> Promise:
    """The promise that figure `name` is more than `bound`."""
    return check(name, fig[name], fig[name] > bound, wanted)


def below(fig: Figures, name: str, bound: float, wanted: str) -> Promise:
    """The promise that figure `name` is less than `bound`."""
    return check(name, fig[name], fig[name] < bound, wanted)


def between(fig: Figures, name: str, low: float, high: float, wanted: str) -> Promise:
    """The promise that figure `name` is from `low` to `high`, both included."""
    return check(name, fig[name], low <= fig[name] <= high, wanted)


BOUNDS = {"at_least": at_least, "at_most": at_most, "above": above, "below": below}


def promised(fig: Figures, spec: PromiseSpec) -> Promise:
    """A `[[promises]]` bound on one figure, kept or not on this run."""
    if spec.comparison == "between":
        return between(fig, spec.name, *spec.bounds, spec.wanted)
    return BOUNDS[spec.comparison](fig, spec.name, *spec.bounds, spec.wanted)


def all_finite(run: Records) -> bool:
    """No step's training loss is NaN or infinite."""
    return all(math.isfinite(r["train_loss"]) for r in run)


def same_lr(run: Records, reference: Records) -> bool:
    """Panel 2 is the reference's, step for step."""
    return all(a["lr"] == b["lr"] for a, b in zip(run, reference, strict=False))


# --- sentences several breaks quote ------------------------------------------------------

def fmt(value: float, lang: str = "en") -> str:
    """A figure as a sentence quotes it: three significant digits, exponents when far from 1."""
    quoted = figure(value)
    return quoted if isinstance(quoted, str) else quoted[lang]


def figure(value: float) -> Figure | str:
    """`fmt`'s rule as a `Figure`, which each language writes with its own symbols."""
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-2):
        return Figure(value, ".1e")
    return Figure(value, ".3g")


class _Quoted:
    """What a sentence template quotes by name: a figure (`{final_val}`) or the same in percent
    (`{clip_share_pct}`) by `fmt`'s rule, or a header field (`{entropy_floor}`): a float by
    `fmt`'s rule, a count (`{vocab_size}`) as it is."""

    def __init__(self, fig: Figures, header: dict[str, Any]) -> None:
        self.fig, self.header = fig, header

    def __getitem__(self, name: str) -> Figure | str:
        if name in self.fig:
            return figure(self.fig[name])
        if name.endswith("_pct") and name[:-4] in self.fig:
            return figure(self.fig[name[:-4]] * 100)
        value = self.header[name]
        return figure(value) if isinstance(value, float) else f"{value}"


def _quoted(fig: Figures, header: dict[str, Any] | None, *messages: str) -> dict[str, Any]:
    quoted = _Quoted(fig, header or {})
    return {name: quoted[name] for message in messages
            for _, name, _, _ in string.Formatter().parse(message) if name}


def said(panel: int, name: str, fig: Figures, message: str,
         header: dict[str, Any] | None = None) -> Finding:
    """Figure `name` as a finding on `panel`: `message` is the English sentence, a template
    that quotes figures and header fields by name in braces (see `_Quoted`), and the catalogs
    translate it. The numbers are quoted now; an unknown name raises KeyError here."""
    return Finding(panel, name, fig[name], Phrase(message, **_quoted(fig, header, message)))


def said_n(panel: int, name: str, fig: Figures, singular: str, plural: str,
           header: dict[str, Any] | None = None) -> Finding:
    """`said`, for a sentence whose words agree with figure `name` ("1 dead head", "2 dead
    heads"): the catalogs hold each language's forms (`say_n`)."""
    values = _quoted(fig, header, singular, plural)
    return Finding(panel, name, fig[name], Pn_(singular, plural, fig[name], **values))


@dataclass(frozen=True)
class Sentence:
    """A sentence several breaks quote: its panel and its English (the catalogs' message),
    with its plural when its words agree with the figure it quotes first (`said_n`)."""

    panel: int
    message: str
    plural: str | None = None


SHARED: dict[str, Sentence] = {  # by the figure it quotes first
    "spectral_jump": Sentence(
        5, N_("a largest singular value grows {spectral_jump_pct}% in the first update "
              "(the reference: {ref_spectral_jump_pct}%)")),
    "clip_share": Sentence(
        3, N_("the gradient is clipped on {clip_share_pct}% of the steps "
              "(the reference: {ref_clip_share_pct}%)")),
    "dead_heads": Sentence(
        6, *Nn_("{dead_heads} dead head at the end (the reference: {ref_dead_heads})",
                "{dead_heads} dead heads at the end (the reference: {ref_dead_heads})")),
    "early_excess": Sentence(
        1, N_("in steps 1-5 the loss stands up to {early_excess} nats above the reference's at "
              "the same step")),
    "spectral0_ratio": Sentence(
        5, N_("largest singular values {spectral0_ratio}x the reference's at step 0, before any "
              "update")),
    "loss0_ratio": Sentence(
        1, N_("loss {loss0} at step 0, {loss0_ratio}x the reference's, where a uniform guess "
              "gives {ln_vocab}")),
    "final_ratio": Sentence(
        1, N_("final validation loss {final_val}, {final_ratio}x the reference's")),
}


def quote(name: str, fig: Figures, header: dict[str, Any] | None = None) -> Finding:
    """The shared sentence of figure `name` (`SHARED`) for this run."""
    sentence = SHARED[name]
    if sentence.plural is not None:
        return said_n(sentence.panel, name, fig, sentence.message, sentence.plural, header)
    return said(sentence.panel, name, fig, sentence.message, header)


# --- promises several breaks keep ----------------------------------------------------------

def schedule_kept(run: Records, reference: Records) -> Promise:
    """Panel 2 is the reference's, step for step."""
    same = same_lr(run, reference)
    return check("same_lr", float(same), same, "the reference's schedule")


def finite_loss(run: Records, wanted: str) -> Promise:
    """No step's training loss is NaN or infinite."""
    finite = all_finite(run)
    return check("finite", float(finite), finite, wanted)


# computed promises any break.toml may place by name (`computed = "same_lr"`) with no code
EVERY_BREAKS: dict[str, Callable[[Records, Records], Promise]] = {"same_lr": schedule_kept}


# --- shapes several breaks share: a break derives one and keeps only what is its own ---------

class InitScale(Signature):
    """Every matrix scaled at step 0 (an init scaled up or down): Panel 5 before any update,
    Panel 4's `activation` (the break's: which line shows the scale) and the step-0 loss speak."""

    needs = ("act_mean_abs", "spectral_norm")

    def activation(self, fig: Figures) -> Finding:
        """Panel 4's step-0 figure that shows the scale, as a sentence."""
        raise NotImplementedError

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        return [quote("spectral0_ratio", fig), self.activation(fig),
                quote("loss0_ratio", fig, header)]


class FloorLeak(Signature):
    """Both losses end below the entropy floor (a mask that lets a head see the future): the
    targets leak in. The break gives its `floor_message` (Panel 1's final validation loss
    against the floor, a `said` template); its break.toml places `dead_heads_excess`."""

    needs = ("val_loss", "entropy_floor")
    floor_message: str  # marked N_("...") for the catalogs

    def vote(self, fig: Figures) -> float:
        # Panel 1: both losses end below the entropy floor
        return min(under(fig["val_floor_ratio"], 0.8), under(fig["train_floor_ratio"], 0.8))

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        return [said(1, "val_floor_ratio", fig, self.floor_message, header),
                quote("dead_heads", fig)]

    def computed(self, fig: Figures, run: Records, reference: Records,
                 header: dict[str, Any]) -> list[Promise]:
        return [check("dead_heads_excess", fig["dead_heads"] - fig["ref_dead_heads"],
                      fig["dead_heads"] > fig["ref_dead_heads"], "> 0 (more than the reference)")]


class LrPeak(Signature):
    """Panel 2's peak `threshold` times the reference's or more (a peak learning rate raised)."""

    threshold: float = 1.5

    def vote(self, fig: Figures) -> float:
        return over(fig["lr_peak_ratio"], self.threshold)

    @staticmethod
    def peak(fig: Figures) -> Finding:
        """The peak's sentence (a break that says more writes its own with `said`)."""
        return said(2, "lr_peak_ratio", fig,
                    "the learning rate peaks {lr_peak_ratio}x the reference's peak")


class WarmupStart(Signature):
    """Panel 2's first step too near its peak (a warmup missing or cut short): the first
    update's jump and the early excess speak beside the break's `start` sentence."""

    def start(self, fig: Figures) -> Finding:
        """Panel 2's first rate, as a sentence (`said`)."""
        raise NotImplementedError

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        return [self.start(fig), quote("spectral_jump", fig), quote("early_excess", fig)]


# --- finding a break's code --------------------------------------------------------------

_loaded: dict[str, Signature] = {}  # by the signature.py it came from


# What a course deck's signature.py did that warns of (an import path of an earlier release,
# `diagnose.moved`), said once as a warning line by the command line.
OLD_IMPORTS: list[str] = []


def load_signature(brk: Break) -> Signature:
    """The `Signature` of `brk`'s folder, loaded once; one `CatalogError` line when its
    `signature.py` is missing, fails to load, or does not hold exactly one subclass."""
    source = brk.folder / SIGNATURE_FILE if brk.folder is not None else None
    key = str(source)
    if key in _loaded:  # the diagnostician asks for every break of a deck on every run
        if _loaded[key].brk != brk:  # the same folder read by another catalog (levels file)
            _loaded[key] = type(_loaded[key])(brk)
        return _loaded[key]
    shown = brk.source.rsplit("/", 1)[0] + "/" + SIGNATURE_FILE
    if source is None or not source.is_file():
        raise CatalogError(f"{shown}: missing (a break's folder holds its break.toml and "
                           f"the {SIGNATURE_FILE} that reads its signature)")
    with resources.as_file(source) as path:
        _loaded[key] = _instantiate(_run_module(path, brk, shown), brk, shown)
    return _loaded[key]


def _run_module(path: Any, brk: Break, shown: str) -> Any:
    name = f"_diagnose_break_{brk.slug.replace('-', '_')}_{len(_loaded)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up there
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", DeprecationWarning)
            spec.loader.exec_module(module)
        for warned in said:  # an old import path is ours to say; any other goes on as raised
            if is_old_path(warned):
                OLD_IMPORTS.append(f"{shown}: {warned.message}")
            else:
                warnings.warn_explicit(warned.message, warned.category, warned.filename,
                                       warned.lineno, source=warned.source)
    except (Exception, SystemExit) as err:  # a course's own code: one line, never a traceback
        del sys.modules[name]                # nor a silent exit 0 (`sys.exit(0)` at import)
        raise CatalogError(f"{shown}: cannot be loaded: {type(err).__name__}: "
                           f"{escape(str(err))[:200]}") from None
    return module


def _instantiate(module: Any, brk: Break, shown: str) -> Signature:
    classes = [obj for obj in vars(module).values()
               if isinstance(obj, type) and issubclass(obj, Signature)
               and obj.__module__ == module.__name__]
    if len(classes) != 1:
        raise CatalogError(f"{shown}: expected one class deriving from "
                           f"diagnose.diagnosis.signatures.Signature, found {len(classes)}")
    cls = classes[0]
    missing = [m for m in ("vote", "findings")
               if getattr(cls, m) is getattr(Signature, m) and not (brk.healthy and m == "vote")]
    if cls.checks is Signature.checks and not brk.promises:
        missing.append("checks (nor does its break.toml list [[promises]])")
    if missing:
        raise CatalogError(f"{shown}: {cls.__name__} does not define {', '.join(missing)}")
    _check_figures(brk)
    if not isinstance(cls.needs, tuple) or not all(isinstance(k, str) for k in cls.needs):
        raise CatalogError(f"{shown}: {cls.__name__}.needs: expected a tuple of field names")
    return cls(brk)


def _check_figures(brk: Break) -> None:
    """Each `[[promises]]` bound names a figure the diagnostician computes (scenarios, which
    reads the table, cannot know them)."""
    names = figure_names()
    for number, spec in enumerate(brk.promises, 1):
        if spec.comparison != COMPUTED and spec.name not in names:
            close = difflib.get_close_matches(spec.name, names, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise CatalogError(f"{brk.source}: [[promises]] {number}: figure: {spec.name!r} is "
                               f"not a figure of diagnose.diagnosis.diagnostician.figures{hint}")


def signature(slug: str) -> Signature:
    """The signature of the catalog's break `slug` (the course deck's included)."""
    import scenarios

    brk = scenarios.breaks(None).get(slug)
    if brk is None:
        raise CatalogError(f"{slug}: no break of that slug in the catalog")
    return load_signature(brk)


def check_course_deck() -> list[str]:
    """Load the course deck's breaks and their signatures now: a problem is one line before
    any command starts (the package's own are loaded when first weighed). Returns what the
    deck's code does that goes in the next release (an old import path), one line each."""
    import scenarios

    for brk in scenarios.breaks(None).values():
        if brk.course:
            load_signature(brk)
    return list(dict.fromkeys(OLD_IMPORTS))
