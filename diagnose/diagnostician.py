"""The automatic diagnostician: names a run's break from its metrics and its reference's alone.

It reads exactly what a student can read on the dashboard (the six panels' series of a run and
of the scenario's healthy reference) and nothing of the config, and says which break the run
most likely holds, how sure it is, and the numbers that decided, panel by panel. It is the
fidelity test (every break must be named on every seed the tests try), the dealer's check
that a scenario's runs can be told apart, and the source of the reveal's and the grader's
numbers. stdlib only: the grader and the reveal use it without numpy.

The thresholds sit well inside the calibrated ranges (bench/fidelity.py prints them per seed);
they are properties of the arithmetic, not of any one seed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

HEALTHY = "healthy"
EARLY = range(1, 6)   # the steps where a missing warmup shows (steps 1-5)
FIRST = range(0, 6)   # steps 0-5

Records = Sequence[dict[str, Any]]
KNOWN = ("bad-init", "no-warmup", "broken-mask")  # the breaks whose signatures it reads


@dataclass(frozen=True)
class Finding:
    """One number that weighed in the verdict, with its sentence in each language."""

    panel: int
    name: str
    value: float
    text: dict[str, str]


@dataclass(frozen=True)
class Diagnosis:
    slug: str                     # a break slug, or "healthy"
    confidence: float             # 0..1
    findings: list[Finding] = field(default_factory=list)  # those that decided, first
    figures: dict[str, float] = field(default_factory=dict)

    def lines(self, lang: str = "en") -> list[str]:
        return [f"Panel {f.panel}: {f.text[lang]}" for f in self.findings]  # "Panel" in both


def _finite(values: Sequence[Any]) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _ratio(a: float, b: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return math.inf if (math.isfinite(b) and b <= 0 and a > 0) or math.isinf(a) else math.nan
    return a / b


def _last(records: Records, key: str) -> float:
    values = _finite([r[key] for r in records if r[key] is not None])
    return values[-1] if values else math.nan


def _spectral(record: dict[str, Any]) -> list[float]:
    return _finite(list(record["spectral_norm"].values())) if record["spectral_norm"] else []


def figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """Every signature figure of architecture §6 for `run` against `reference`."""
    lr_max = header["lr_max"]
    floor = header["entropy_floor"]
    n = min(len(run), len(reference))
    fig: dict[str, float] = {}
    fig["loss0"] = run[0]["train_loss"]
    fig["loss0_ratio"] = _ratio(run[0]["train_loss"], reference[0]["train_loss"])
    fig["act0_ratio"] = _ratio(max(_finite(run[0]["act_mean_abs"] or []), default=math.nan),
                               max(_finite(reference[0]["act_mean_abs"] or []), default=math.nan))
    fig["grad_early_ratio"] = _ratio(
        max(_finite([run[s]["grad_norm_preclip"] for s in FIRST if s < n]), default=math.nan),
        max(_finite([reference[s]["grad_norm_preclip"] for s in FIRST if s < n]),
            default=math.nan))
    fig["spectral0_ratio"] = _ratio(statistics.median(_spectral(run[0]) or [math.nan]),
                                    statistics.median(_spectral(reference[0]) or [math.nan]))
    fig["lr0_frac"] = run[0]["lr"] / lr_max
    fig["ref_lr0_frac"] = reference[0]["lr"] / lr_max
    excess = [run[s]["train_loss"] - reference[s]["train_loss"] for s in EARLY if s < n]
    fig["early_excess"] = max(_finite(excess), default=math.nan)
    fig["spectral_jump"] = _jump(run)
    fig["ref_spectral_jump"] = _jump(reference)
    fig["final_val"] = _last(run, "val_loss")
    fig["ref_final_val"] = _last(reference, "val_loss")
    fig["final_train"] = _last(run, "train_loss")
    fig["final_ratio"] = _ratio(fig["final_val"], fig["ref_final_val"])
    fig["val_floor_ratio"] = _ratio(fig["final_val"], floor)
    fig["train_floor_ratio"] = _ratio(fig["final_train"], floor)
    fig["dead_heads"] = _last(run, "dead_heads")
    fig["ref_dead_heads"] = _last(reference, "dead_heads")
    return fig


def _jump(records: Records) -> float:
    """Largest relative growth of a matrix's top singular value in the first update."""
    if len(records) < 2 or not records[0]["spectral_norm"]:
        return math.nan
    before, after = records[0]["spectral_norm"], records[1]["spectral_norm"]
    growth = [after[k] / before[k] - 1 for k in before
              if math.isfinite(before[k]) and math.isfinite(after[k]) and before[k] > 0]
    return max(growth, default=math.nan)


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-2):
        return f"{value:.1e}"
    return f"{value:.3g}"


def _findings(fig: dict[str, float], header: dict[str, Any]) -> dict[str, list[Finding]]:
    """The sentences, grouped by the break they speak for."""
    f = _fmt
    return {
        "bad-init": [
            Finding(4, "act0_ratio", fig["act0_ratio"], {
                "en": f"step-0 activations {f(fig['act0_ratio'])}x the reference's, before any "
                      "update",
                "es": f"activaciones en el paso 0 {f(fig['act0_ratio'])} veces las de la "
                      "referencia, antes de actualizar nada"}),
            Finding(3, "grad_early_ratio", fig["grad_early_ratio"], {
                "en": f"pre-clip gradient norm in steps 0-5 {f(fig['grad_early_ratio'])}x the "
                      "reference's",
                "es": f"norma del gradiente antes del recorte en los pasos 0-5 "
                      f"{f(fig['grad_early_ratio'])} veces la de referencia"}),
            Finding(1, "loss0", fig["loss0"], {
                "en": f"loss {f(fig['loss0'])} at step 0, where a uniform guess gives "
                      f"ln({header['vocab_size']}) = {f(header['ln_vocab'])}",
                "es": f"pérdida {f(fig['loss0'])} en el paso 0, cuando adivinar al azar da "
                      f"ln({header['vocab_size']}) = {f(header['ln_vocab'])}"}),
            Finding(5, "spectral0_ratio", fig["spectral0_ratio"], {
                "en": f"largest singular values {f(fig['spectral0_ratio'])}x the reference's at "
                      "step 0",
                "es": f"mayores valores singulares {f(fig['spectral0_ratio'])} veces los de "
                      "referencia en el paso 0"}),
        ],
        "no-warmup": [
            Finding(2, "lr0_frac", fig["lr0_frac"], {
                "en": f"the learning rate starts at {f(fig['lr0_frac'] * 100)}% of its peak "
                      f"(the reference: {f(fig['ref_lr0_frac'] * 100)}%)",
                "es": f"el learning rate empieza en el {f(fig['lr0_frac'] * 100)}% de su máximo "
                      f"(la referencia: {f(fig['ref_lr0_frac'] * 100)}%)"}),
            Finding(5, "spectral_jump", fig["spectral_jump"], {
                "en": f"a largest singular value grows {f(fig['spectral_jump'] * 100)}% in the "
                      f"first update (the reference: {f(fig['ref_spectral_jump'] * 100)}%)",
                "es": f"un mayor valor singular crece un {f(fig['spectral_jump'] * 100)}% en la "
                      f"primera actualización (la referencia: "
                      f"{f(fig['ref_spectral_jump'] * 100)}%)"}),
            Finding(1, "early_excess", fig["early_excess"], {
                "en": f"in steps 1-5 the loss stands up to {f(fig['early_excess'])} nats above "
                      "the reference's at the same step",
                "es": f"en los pasos 1-5 la pérdida queda hasta {f(fig['early_excess'])} nats "
                      "por encima de la de referencia en el mismo paso"}),
        ],
        "broken-mask": [
            Finding(1, "val_floor_ratio", fig["val_floor_ratio"], {
                "en": f"final validation loss {f(fig['final_val'])}, {f(fig['val_floor_ratio'])}x "
                      f"the corpus's entropy floor {f(header['entropy_floor'])}: below what any "
                      "honest model can reach",
                "es": f"pérdida de validación final {f(fig['final_val'])}, "
                      f"{f(fig['val_floor_ratio'])} veces el suelo de entropía del corpus "
                      f"{f(header['entropy_floor'])}: por debajo de lo que un modelo honesto "
                      "puede alcanzar"}),
            Finding(6, "dead_heads", fig["dead_heads"], {
                "en": f"{f(fig['dead_heads'])} dead heads at the end (the reference: "
                      f"{f(fig['ref_dead_heads'])})",
                "es": f"{f(fig['dead_heads'])} cabezas muertas al final (la referencia: "
                      f"{f(fig['ref_dead_heads'])})"}),
        ],
        HEALTHY: [
            Finding(1, "final_val", fig["final_val"], {
                "en": f"final validation loss {f(fig['final_val'])}, above the entropy floor "
                      f"{f(header['entropy_floor'])} and well below ln({header['vocab_size']})",
                "es": f"pérdida de validación final {f(fig['final_val'])}, por encima del suelo "
                      f"de entropía {f(header['entropy_floor'])} y muy por debajo de "
                      f"ln({header['vocab_size']})"}),
            Finding(2, "lr0_frac", fig["lr0_frac"], {
                "en": "the learning rate warms up from near zero",
                "es": "el learning rate arranca cerca de cero y sube"}),
        ],
    }


def findings_for(slug: str, fig: dict[str, float], header: dict[str, Any]) -> list[Finding]:
    """The panel findings that speak for `slug` (empty for a break this module does not know)."""
    return _findings(fig, header).get(slug, [])


def _votes(fig: dict[str, float]) -> dict[str, float]:
    """How strongly each break's signature shows, as a margin over its threshold (<= 0: absent).

    Each margin is in decades (log10) past the threshold, so the signatures are comparable.
    """
    def over(value: float, threshold: float) -> float:
        if math.isnan(value):
            return -1.0
        if math.isinf(value):
            return 3.0 if value > 0 else -3.0
        return math.log10(max(value, 1e-12) / threshold)

    def under(value: float, threshold: float) -> float:
        return -over(value, threshold) if not math.isnan(value) else -1.0

    return {
        # the init shows before the first update: activations and loss at step 0
        "bad-init": min(over(fig["act0_ratio"], 10.0), over(fig["loss0_ratio"], 2.0)),
        # Panel 2: the very first step already runs at (nearly) the peak learning rate
        "no-warmup": over(fig["lr0_frac"], 0.5),
        # Panel 1: both losses end below the entropy floor
        "broken-mask": min(under(fig["val_floor_ratio"], 0.8),
                           under(fig["train_floor_ratio"], 0.8)),
    }


def diagnose_run(run: Records, reference: Records, header: dict[str, Any]) -> Diagnosis:
    """The most likely break of `run` (or "healthy"), its confidence and the deciding numbers."""
    if not run or not reference:
        return Diagnosis(HEALTHY, 0.0)
    fig = figures(run, reference, header)
    votes = _votes(fig)
    best = max(votes, key=votes.__getitem__)
    findings = _findings(fig, header)
    if votes[best] <= 0:
        # no signature at all: healthy, as sure as the closest signature is far
        confidence = min(1.0, -votes[best] / math.log10(2))
        return Diagnosis(HEALTHY, round(confidence, 3), findings[HEALTHY], fig)
    others = sorted((v for k, v in votes.items() if k != best), reverse=True)
    runner_up = max(others[0], 0.0) if others else 0.0
    # a factor of two past the threshold, with no rival signature, is certainty
    confidence = min(1.0, (votes[best] - runner_up) / math.log10(2))
    return Diagnosis(best, round(max(confidence, 0.0), 3), findings[best], fig)


def runs_distinguishable(records: dict[str, Records], deal: dict[str, str],
                         header: dict[str, Any] | None = None) -> bool:
    """True when the diagnostician names every dealt break it knows, and the reference healthy."""
    import scenarios
    from diagnose.engine import run_header_fields  # the dealer already has numpy loaded

    header = header or run_header_fields(scenarios.healthy_config())
    reference = records["reference"]
    if diagnose_run(reference, reference, header).slug != HEALTHY:
        return False
    return all(diagnose_run(records[rid], reference, header).slug == slug
               for rid, slug in deal.items() if slug in KNOWN)
