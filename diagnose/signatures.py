"""A break's own code: the `Signature` class its folder's `signature.py` derives, and its loader.

A break is a folder, `scenarios/breaks/<slug>/`: `break.toml` holds its data (the catalog reads
it) and `signature.py` one subclass of `Signature` holding that break's code and nothing else:

- `vote(fig)`: how strongly its signature shows in a run's figures, in decades (log10) past a
  threshold (<= 0: absent), so the diagnostician can weigh breaks against each other;
- `findings(fig, header)`: the numbers that speak for it, each a sentence in every language;
- `checks(fig, run, reference, header)`: the fidelity promises `bench/fidelity.py` proves;
- `needs`: the recorded fields (step keys, "entropy_floor") its vote reads, for `diagnose check`.

The figures are `diagnose.diagnostician.figures`'s (one definition of each number); the helpers
below (`over`, `under`, `check`, the sentences several breaks quote) are here once. A folder's
code runs only where `diagnose` loads it (the instructor's or the player's machine): `scenarios`
and `grading` never import it, and the Gradescope zip carries `break.toml` alone. A course's own
deck (`DIAGNOSE_DECK`) is loaded by the same code. stdlib only, like the diagnostician.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from scenarios import Break, CatalogError

SIGNATURE_FILE = "signature.py"
Records = Sequence[dict[str, Any]]
Figures = dict[str, float]
FROZEN_MOVE = 0.003  # a matrix whose largest singular value moved less over the run is frozen


@dataclass(frozen=True)
class Finding:
    """One number that weighed in the verdict, with its sentence in each language."""

    panel: int
    name: str
    value: float
    text: dict[str, str]


@dataclass(frozen=True)
class Check:
    """One fidelity promise on one run: its figure and whether it held."""

    name: str
    passed: bool
    value: float
    wanted: str


class Signature:
    """One break's reading of the panels. Subclass it once in the break's `signature.py`."""

    needs: tuple[str, ...] = ()  # recorded fields its vote reads: step keys, "entropy_floor"

    def __init__(self, brk: Break) -> None:
        self.brk = brk  # its break.toml, for thresholds that follow its own override

    def vote(self, fig: Figures) -> float:
        """How strongly the signature shows, in decades past its threshold (<= 0: absent)."""
        raise NotImplementedError

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        """The run's numbers that speak for this break, the most telling first."""
        raise NotImplementedError

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        """The promises the break keeps on every seed, for `run` against `reference`."""
        raise NotImplementedError


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

def check(name: str, value: float, ok: bool, wanted: str) -> Check:
    """A promise: `ok` on a figure that is a number (NaN never passes)."""
    return Check(name, bool(ok) and not math.isnan(value), value, wanted)


def all_finite(run: Records) -> bool:
    """No step's training loss is NaN or infinite."""
    return all(math.isfinite(r["train_loss"]) for r in run)


def same_lr(run: Records, reference: Records) -> bool:
    """Panel 2 is the reference's, step for step."""
    return all(a["lr"] == b["lr"] for a, b in zip(run, reference, strict=False))


# --- sentences several breaks quote ------------------------------------------------------

def fmt(value: float) -> str:
    """A figure as a sentence quotes it: three significant digits, exponents when far from 1."""
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-2):
        return f"{value:.1e}"
    return f"{value:.3g}"


def spectral_jump(fig: Figures) -> Finding:
    f = fmt
    return Finding(5, "spectral_jump", fig["spectral_jump"], {
        "en": f"a largest singular value grows {f(fig['spectral_jump'] * 100)}% in the "
              f"first update (the reference: {f(fig['ref_spectral_jump'] * 100)}%)",
        "es": f"un mayor valor singular crece un {f(fig['spectral_jump'] * 100)}% en la "
              f"primera actualización (la referencia: "
              f"{f(fig['ref_spectral_jump'] * 100)}%)"})


def early_excess(fig: Figures) -> Finding:
    f = fmt
    return Finding(1, "early_excess", fig["early_excess"], {
        "en": f"in steps 1-5 the loss stands up to {f(fig['early_excess'])} nats above "
              "the reference's at the same step",
        "es": f"en los pasos 1-5 la pérdida queda hasta {f(fig['early_excess'])} nats "
              "por encima de la de referencia en el mismo paso"})


def spectral0_before_update(fig: Figures) -> Finding:
    f = fmt
    return Finding(5, "spectral0_ratio", fig["spectral0_ratio"], {
        "en": f"largest singular values {f(fig['spectral0_ratio'])}x the reference's at "
              "step 0, before any update",
        "es": f"mayores valores singulares {f(fig['spectral0_ratio'])} veces los de "
              "referencia en el paso 0, antes de actualizar nada"})


def loss0_ratio(fig: Figures, header: dict[str, Any]) -> Finding:
    f = fmt
    return Finding(1, "loss0_ratio", fig["loss0_ratio"], {
        "en": f"loss {f(fig['loss0'])} at step 0, {f(fig['loss0_ratio'])}x the "
              f"reference's, where a uniform guess gives {f(header['ln_vocab'])}",
        "es": f"pérdida {f(fig['loss0'])} en el paso 0, {f(fig['loss0_ratio'])} veces "
              f"la de referencia, cuando adivinar al azar da {f(header['ln_vocab'])}"})


def final_ratio(fig: Figures) -> Finding:
    f = fmt
    return Finding(1, "final_ratio", fig["final_ratio"], {
        "en": f"final validation loss {f(fig['final_val'])}, {f(fig['final_ratio'])}x "
              "the reference's",
        "es": f"pérdida de validación final {f(fig['final_val'])}, "
              f"{f(fig['final_ratio'])} veces la de referencia"})


def clip_share(fig: Figures) -> Finding:
    f = fmt
    return Finding(3, "clip_share", fig["clip_share"], {
        "en": f"the gradient is clipped on {f(fig['clip_share'] * 100)}% of the steps "
              f"(the reference: {f(fig['ref_clip_share'] * 100)}%)",
        "es": f"el gradiente se recorta en el {f(fig['clip_share'] * 100)}% de los "
              f"pasos (la referencia: {f(fig['ref_clip_share'] * 100)}%)"})


def dead_heads(fig: Figures) -> Finding:
    f = fmt
    return Finding(6, "dead_heads", fig["dead_heads"], {
        "en": f"{f(fig['dead_heads'])} dead heads at the end (the reference: "
              f"{f(fig['ref_dead_heads'])})",
        "es": f"{f(fig['dead_heads'])} cabezas muertas al final (la referencia: "
              f"{f(fig['ref_dead_heads'])})"})


# --- finding a break's code --------------------------------------------------------------

_loaded: dict[str, Signature] = {}  # by the signature.py it came from


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
        spec.loader.exec_module(module)
    except Exception as err:  # a course's own code: its mistake is one line, not a traceback
        del sys.modules[name]
        raise CatalogError(f"{shown}: cannot be loaded: {type(err).__name__}: {err}") from None
    return module


def _instantiate(module: Any, brk: Break, shown: str) -> Signature:
    classes = [obj for obj in vars(module).values()
               if isinstance(obj, type) and issubclass(obj, Signature)
               and obj.__module__ == module.__name__]
    if len(classes) != 1:
        raise CatalogError(f"{shown}: expected one class deriving from "
                           f"diagnose.signatures.Signature, found {len(classes)}")
    cls = classes[0]
    missing = [m for m in ("vote", "findings", "checks")
               if getattr(cls, m) is getattr(Signature, m) and not (brk.healthy and m == "vote")]
    if missing:
        raise CatalogError(f"{shown}: {cls.__name__} does not define {', '.join(missing)}")
    if not isinstance(cls.needs, tuple) or not all(isinstance(k, str) for k in cls.needs):
        raise CatalogError(f"{shown}: {cls.__name__}.needs: expected a tuple of field names")
    return cls(brk)


def signature(slug: str) -> Signature:
    """The signature of the catalog's break `slug` (the course deck's included)."""
    import scenarios

    brk = scenarios.breaks(None).get(slug)
    if brk is None:
        raise CatalogError(f"{slug}: no break of that slug in the catalog")
    return load_signature(brk)


def check_course_deck() -> None:
    """Load the course deck's breaks and their signatures now: a problem is one line before
    any command starts (the package's own are loaded when first weighed)."""
    import scenarios

    for brk in scenarios.breaks(None).values():
        if brk.course:
            load_signature(brk)
