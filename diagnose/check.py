"""`diagnose check`: what the diagnostician reads in a run of yours, against your reference.

A reading, never a verdict: it weighs every break the diagnostician knows (all levels of the
catalog), says which one the run's panels resemble and how sure it is, and lists each sign
with the run's own number beside the reference's. Where the panels cannot tell two breaks
apart (a broken and a leaky causal mask leave the same marks), it says so as a tie and never
picks one. A sign whose field the run (or the reference) did not record is said to be "not
recorded", and the breaks that only that field shows are listed as not weighed.

It refuses what it cannot read honestly: a run without a reference, a reference of another
model or data (the header's `model`, `data`, sizes and entropy floor, and the shapes of the
activation and spectral records, must agree), and a run inside a game workspace whose answers
are not yet revealed (a courtesy to the game, not a boundary: the README says the metrics can
be read by program). A run still training is read up to its last step, against the reference
up to the same step.

The thresholds are the diagnostician's, calibrated on the course's model: the README says
which readings depend on it. stdlib only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose import diagnostician
from diagnose.metrics import STEP_OPTIONAL, read_metrics, recorded
from diagnose.phrases import Phrase
from diagnose.signatures import signature
from diagnose.workspace import METRICS_FILE
from grading.layout import REVEAL_FILE, SCENARIO_FILE
from scenarios.errors import UserError
from scenarios.levels import all_levels
from scenarios.words import say

SAME_RUN_KEYS = ("model", "data", "params", "vocab_size", "entropy_floor", "heads_total",
                 "neurons_total")
# the signs printed for every run: (panel, figure, what it is); a ratio's reference is 1
SIGNS = (
    (1, "loss0", Phrase("loss at step 0")),
    (1, "final_train", Phrase("last training loss")),
    (1, "final_val", Phrase("last validation loss")),
    (1, "val_floor_ratio", Phrase("last validation loss / entropy floor")),
    (2, "lr0_frac", Phrase("first learning rate / the peak")),
    (3, "grad_early_ratio", Phrase("largest pre-clip norm in steps 0-5, x the reference's")),
    (3, "clip_share", Phrase("share of steps clipped")),
    (4, "act0_ratio", Phrase("step-0 activations, x the reference's")),
    (4, "residual_end_ratio", Phrase("last residual stream, x the reference's")),
    (5, "spectral0_ratio", Phrase("step-0 singular values (median), x the reference's")),
    (5, "spectral_jump", Phrase("largest growth in the first update")),
    (5, "least_moved", Phrase("smallest move over the run")),
    (6, "dead_heads", Phrase("dead heads at the end")),
)
SIGN_NEEDS = {"final_val": ("val_loss",), "val_floor_ratio": ("val_loss", "entropy_floor"),
              "grad_early_ratio": ("grad_norm_preclip",),
              "clip_share": ("grad_norm_preclip", "grad_norm_postclip"),
              "act0_ratio": ("act_mean_abs",), "residual_end_ratio": ("act_mean_abs",),
              "spectral0_ratio": ("spectral_norm",), "spectral_jump": ("spectral_norm",),
              "least_moved": ("spectral_norm",), "dead_heads": ("dead_heads",)}
RATIOS = ("grad_early_ratio", "act0_ratio", "residual_end_ratio", "spectral0_ratio")


class CheckError(UserError):
    """`check` cannot read this run honestly: one line saying why, and what to do."""


@dataclass(frozen=True)
class Sign:
    panel: int
    name: str
    label: Mapping[str, str]
    run: float | None        # None: not recorded
    reference: float | None


@dataclass(frozen=True)
class RunReading:
    """What `check` prints: the resembled break(s) (empty: healthy), the confidence, the
    signs, the diagnostician's deciding findings, and what could not be weighed."""

    run: str
    reference: str
    steps: int
    reference_steps: int
    resembles: tuple[str, ...]
    confidence: float
    signs: list[Sign]
    findings: list[diagnostician.Finding]
    not_recorded: tuple[str, ...]
    not_weighed: tuple[str, ...]
    also: tuple[str, ...] = ()
    in_reference: tuple[str, ...] = ()  # signatures the reference shows too: not weighed
    titles: dict[str, Mapping[str, str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        def number(value: float | None) -> float | str | None:
            return value if value is None or math.isfinite(value) else str(value)
        return {"run": self.run, "reference": self.reference, "steps": self.steps,
                "reference_steps": self.reference_steps,
                "reading": "healthy" if not self.resembles else
                           self.resembles[0] if len(self.resembles) == 1 else "tie",
                "resembles": list(self.resembles), "confidence": self.confidence,
                "signs": [{"panel": s.panel, "sign": s.name, "run": number(s.run),
                           "reference": number(s.reference)} for s in self.signs],
                "findings": [{"panel": f.panel, "sign": f.name, "value": number(f.value),
                              "text": dict(f.text)} for f in self.findings],
                "also_shows": list(self.also), "not_recorded": list(self.not_recorded),
                "not_weighed": list(self.not_weighed),
                "shown_by_reference": list(self.in_reference)}

    def lines(self, lang: str = "en") -> list[str]:
        from diagnose.panels import format_number

        out = [say(lang, "What the panels of {run} suggest, read against {ref} ({n} of {m} steps):",
                   run=self.run, ref=self.reference, n=self.steps, m=self.reference_steps)]
        if not self.resembles:
            out.append(say(lang, "It reads as healthy: no break's signature shows (confidence "
                                 "{c:.0%}).", c=self.confidence))
        elif len(self.resembles) == 1:
            slug = self.resembles[0]
            out.append(say(lang, "It resembles {title} ({slug}), confidence {c:.0%}.",
                           title=self.titles[slug][lang], slug=slug, c=self.confidence))
        else:
            titles = " / ".join(f"{self.titles[s][lang]} ({s})" for s in self.resembles)
            out.append(say(lang, "It resembles {titles}: a tie, which these panels cannot tell "
                                 "apart (confidence {c:.0%} against the other breaks).",
                           titles=titles, c=self.confidence))
        if self.also:
            out.append(say(lang, "The same setting at a smaller magnitude shows too: {titles}.",
                           titles=" / ".join(f"{self.titles[s][lang]} ({s})" for s in self.also)))
        if self.findings:
            out.append(say(lang, "What weighed:"))
            out += ["  " + say(lang, "Panel {n}: {text}", n=f.panel, text=f.text[lang])
                    for f in self.findings]
        out.append(say(lang, "Signs (this run / the reference):"))
        shown = say(lang, "not recorded")
        for sign in self.signs:
            values = [shown if v is None else format_number(v, lang)
                      for v in (sign.run, sign.reference)]
            out.append("  " + say(lang, "Panel {n}: {text}", n=sign.panel,
                                  text=f"{sign.label[lang]}: {values[0]} / {values[1]}"))
        if self.not_recorded:
            out.append(say(lang, "Not recorded: {keys}. Not weighed, for want of them: {slugs}.",
                           keys=", ".join(self.not_recorded),
                           slugs=", ".join(self.not_weighed) or "–"))
        if self.in_reference:
            out.append(say(lang, "Not weighed, as the reference shows their signature too (a "
                                 "threshold of the course's model that does not fit this one): "
                                 "{slugs}.", slugs=", ".join(self.in_reference)))
        out.append(say(lang, "A reading of the curves, not a verdict: the thresholds come from "
                             "the course's model."))
        return out


def metrics_path(path: Path) -> Path:
    """RUN may be the metrics file or the folder holding it."""
    path = Path(path)
    return path / METRICS_FILE if path.is_dir() else path


def refuse_unrevealed(path: Path, lang: str = "en") -> None:
    """A run inside a game workspace whose answers are still sealed is not read."""
    for folder in Path(path).resolve().parents:
        if (folder / SCENARIO_FILE).is_file() and not (folder / REVEAL_FILE).exists():
            raise CheckError(
                say(lang, "{path} is inside a game workspace whose answers are not revealed",
                    path=path),
                say(lang, "diagnose them yourself and hand in your diagnoses file: your "
                          "instructor hands back the solutions") if _dealt(folder)
                else say(lang, "diagnose them yourself first, or run diagnose reveal"))


def _dealt(workspace: Path) -> bool:
    """Whether a workspace is an instructor's bundle (only its answers' words depend on it)."""
    from grading.grade import read_scenario

    try:
        return read_scenario(workspace).key == "instructor"
    except UserError:
        return False


def _as_diagnostician_reads(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The diagnostician reads every key at every step; an unrecorded norm is NaN to it, which
    it leaves out of every figure."""
    nan_if_none = ("grad_norm_preclip", "grad_norm_postclip")
    return [{**r, **{k: math.nan for k in nan_if_none if r[k] is None}} for r in records]


def _differ(names: tuple[str, str], lang: str, key: str, a: Any, b: Any) -> CheckError:
    return CheckError(
        say(lang, "{run} and the reference {ref} are not runs of the same model and data: {key} "
                  "{a} against {b}", run=names[0], ref=names[1], key=key, a=a, b=b),
        say(lang, "a reference is a healthy run of the same setup"))


def same_model(run_header: dict[str, Any], ref_header: dict[str, Any],
               names: tuple[str, str], lang: str = "en") -> None:
    """Refuse a reference whose header names another model or data (`SAME_RUN_KEYS`)."""
    for key in SAME_RUN_KEYS:
        a, b = run_header.get(key), ref_header.get(key)
        if a != b and not (isinstance(a, float) and isinstance(b, float)
                           and math.isclose(a, b, rel_tol=1e-9)):
            raise _differ(names, lang, key, a, b)


def _same_setup(run: tuple[dict, list], ref: tuple[dict, list], names: tuple[str, str],
                lang: str) -> None:
    (run_header, run_records), (ref_header, ref_records) = run, ref
    same_model(run_header, ref_header, names, lang)

    def differ(key: str, a: Any, b: Any) -> CheckError:
        return _differ(names, lang, key, a, b)

    first_run, first_ref = run_records[0], ref_records[0]
    if first_run["act_mean_abs"] and first_ref["act_mean_abs"] and (
            len(first_run["act_mean_abs"]) != len(first_ref["act_mean_abs"])):
        raise differ("act_mean_abs", len(first_run["act_mean_abs"]),
                     len(first_ref["act_mean_abs"]))
    if first_run["spectral_norm"] and first_ref["spectral_norm"] and (
            set(first_run["spectral_norm"]) != set(first_ref["spectral_norm"])):
        raise differ("spectral_norm", len(first_run["spectral_norm"]),
                     len(first_ref["spectral_norm"]))


def _has(header: dict[str, Any], key: str) -> bool:
    if key == "entropy_floor":
        return header.get("entropy_floor") is not None
    return recorded(header, key)


def all_breaks() -> tuple[str, ...]:
    """Every break the diagnostician weighs: every level's deck (a course deck's breaks are
    in the levels that deal them), each once, in level order."""
    return tuple(dict.fromkeys(slug for level in all_levels() for slug in level.deck))


def check_run(run: Path, reference: Path | None, lang: str = "en") -> RunReading:
    """Read `run` against `reference` (each a metrics file or its folder)."""
    import scenarios

    if reference is None:
        raise CheckError(
            say(lang, "check needs a reference run of the same model and data"),
            say(lang, "train it healthy once and pass --reference its metrics.jsonl"))
    run_file, ref_file = metrics_path(run), metrics_path(reference)
    for path in (run_file, ref_file):
        refuse_unrevealed(path, lang)
    run_header, run_records = read_metrics(run_file)
    ref_header, ref_records = read_metrics(ref_file)
    for path, records in ((run_file, run_records), (ref_file, ref_records)):
        if not records:
            raise CheckError(say(lang, "{path} has no step yet", path=path))
    _same_setup((run_header, run_records), (ref_header, ref_records),
                (str(run_file), str(ref_file)), lang)

    # a run still training is read against the reference up to the same step
    ref_window = ref_records[:max(len(run_records), 1)]
    header = {**ref_header}
    for key in ("entropy_floor", "ln_vocab"):
        header[key] = math.nan if header.get(key) is None else header[key]
    header["vocab_size"] = header.get("vocab_size") or "V"
    run_read = _as_diagnostician_reads(run_records)
    ref_read = _as_diagnostician_reads(ref_window)

    missing = tuple(k for k in (*STEP_OPTIONAL, "entropy_floor")
                    if not (_has(run_header, k) and _has(ref_header, k)))
    every = all_breaks()
    readable = tuple(s for s in every if not set(signature(s).needs) & set(missing))
    # a signature the healthy reference shows against itself is a threshold that does not fit
    # this model (the thresholds are the course model's), not a sign: it is not weighed
    in_reference = tuple(s for s in readable if diagnostician.diagnose_run(
        ref_read, ref_read, header, deck=(s,)).slug == s)
    weighed = tuple(s for s in readable if s not in in_reference)
    catalog = scenarios.breaks(None)
    resembles, confidence, findings, also = _read(run_read, ref_read, header, weighed, catalog)
    fig_run = diagnostician.figures(run_read, ref_read, header)
    fig_ref = diagnostician.figures(ref_read, ref_read, header)
    signs = []
    for panel, name, label in SIGNS:
        has = not set(SIGN_NEEDS.get(name, ())) & set(missing)
        signs.append(Sign(panel, name, label, fig_run[name] if has else None,
                          (1.0 if name in RATIOS else fig_ref[name]) if has else None))
    return RunReading(run=str(run_file), reference=str(ref_file), steps=len(run_records),
                      reference_steps=len(ref_records), resembles=resembles,
                      confidence=confidence, signs=signs, findings=findings,
                      not_recorded=missing,
                      not_weighed=tuple(s for s in every if s not in readable),
                      in_reference=in_reference,
                      also=also, titles={s: catalog[s].title for s in (*resembles, *also)})


def _read(run: list, ref: list, header: dict[str, Any], weighed: tuple[str, ...],
          catalog: dict[str, Any]) -> tuple[tuple[str, ...], float, list, tuple[str, ...]]:
    """(the breaks the run resembles, empty if healthy; the confidence; the deciding findings;
    the same setting's other magnitudes that show too)."""
    best = diagnostician.diagnose_run(run, ref, header, deck=weighed)
    if best.slug == diagnostician.HEALTHY:
        return (), best.confidence, list(best.findings), ()
    # one setting at two magnitudes (init_scale at 100 and at 3): when both
    # signatures show, the reading names the lab's (the larger: a lower level) and says the
    # other shows too. The catalog's overrides say which breaks share a setting.
    knob = set(catalog[best.slug].override)
    kin = [s for s in weighed if s != best.slug and set(catalog[s].override) & knob
           and diagnostician.diagnose_run(run, ref, header, deck=(s,)).slug == s]
    showing = sorted((best.slug, *kin), key=lambda s: min(catalog[s].levels))
    deck = tuple(s for s in weighed if s not in showing[1:])
    best = diagnostician.diagnose_run(run, ref, header, deck=deck)
    named = best.slug
    also = tuple(s for s in showing if s != named)
    tied = tuple(other for other in deck if other != named and _tie(run, ref, header, named,
                                                                      other))
    confidence = best.confidence
    if tied:
        confidence = diagnostician.diagnose_run(
            run, ref, header, deck=tuple(s for s in deck if s not in tied)).confidence
    return (named, *tied), confidence, list(best.findings), also


def _tie(run: list, ref: list, header: dict[str, Any], best: str, other: str) -> bool:
    """Whether the panels weigh `other` exactly as `best`: between the two alone, the
    diagnostician names one with no margin at all."""
    pair = diagnostician.diagnose_run(run, ref, header, deck=(best, other))
    return pair.slug in (best, other) and pair.confidence == 0.0
