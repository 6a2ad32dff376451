"""`diagnose check`: what the diagnostician reads in a run of yours, against your reference.

A reading, never a verdict, of three kinds (`RunReading.kind`): a break of the catalog the run's
panels resemble (every level's breaks weighed), healthy, or "differs": the run leaves the
reference's band (`diagnose.runs.bands`) where no break that shows lists that panel. It says how
clear a named break's mark is in words (no percentage: bench/own_runs.py --reliability), and
lists each sign with the run's own number beside the reference's. Where the panels cannot tell
two breaks apart (a broken and a leaky causal mask leave the same marks), it says so as a tie
and never picks one. A sign whose field the run (or the reference) did not record is said to
be "not recorded", and the breaks that only that field shows are listed as not weighed.

It refuses what it cannot read honestly: a run without a reference, a reference of another
model or data (the header's `model`, `data`, sizes and entropy floor, and the shapes of the
activation and spectral records, must agree), and a run inside a game workspace whose answers
are not yet revealed (a courtesy to the game, not a boundary: docs/own-runs.md says the metrics can
be read by program). A run still training is read up to its last step, against the reference
up to the same step.

The thresholds are the diagnostician's, calibrated on the course's model: docs/own-runs.md says
which readings depend on it. stdlib only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.diagnosis import diagnostician, figures
from diagnose.diagnosis.signatures import FROZEN_MOVE, signature
from diagnose.metrics import STEP_OPTIONAL, read_metrics, recorded
from diagnose.phrases import Phrase
from diagnose.runs import bands
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
    departures: tuple[bands.Departure, ...] = ()  # where it leaves the reference's band
    against_reference: bool = False  # a leak read against the reference (no floor)
    margin: float = 0.0  # the named break's vote over the runner-up's (decades)
    kin: tuple[str, ...] = ()  # of `also`, the named break's setting at another magnitude
    explained: tuple[int, ...] = ()  # the panels the breaks shown list (their signatures)

    unexplained: tuple[int, ...] = ()  # panels left that no break shown lists

    @property
    def kind(self) -> str:
        """"break" (one, or a tie), "healthy", or "differs": the run leaves its reference's
        band, and no break of the catalog shows, or none that shows lists every panel where
        it leaves (`EXPLAINING`)."""
        if self.resembles and not self.unexplained:
            return "break"
        return "differs" if self.departures else "healthy"

    @property
    def sureness(self) -> str | None:
        """What the evidence supports saying of a named break, in words (no percentage: the
        reliability table of bench/own_runs.py --reliability found the old one off by more
        than 10 points in its bins): "clear" when its mark stands at least twice past its
        threshold beyond any rival's, "faint" otherwise; None when no break is named."""
        if not self.resembles:
            return None
        return "clear" if self.margin >= CLEAR_MARGIN else "faint"

    def sureness_line(self, lang: str) -> str:
        factor = format_factor(10 ** self.margin)
        if self.sureness == "clear":
            return say(lang, "A clear mark: it stands {factor}x past its threshold, beyond any "
                             "other break's.", factor=factor)
        return say(lang, "A faint mark: only {factor}x past its threshold beyond any other "
                         "break's; weigh it against the panels.", factor=factor)

    def as_json(self) -> dict[str, Any]:
        def number(value: float | None) -> float | str | None:
            return value if value is None or math.isfinite(value) else str(value)
        return {"run": self.run, "reference": self.reference, "steps": self.steps,
                "reference_steps": self.reference_steps,
                "reading": (self.kind if self.kind != "break" else
                            self.resembles[0] if len(self.resembles) == 1 else "tie"),
                "kind": self.kind,
                "unexplained_panels": list(self.unexplained),
                "departures": [{"panel": d.panel, "key": d.key, "series": d.series,
                                "step": d.step, "worst_step": d.worst_step,
                                "run": number(d.run), "reference": number(d.reference),
                                "spreads": number(d.spreads), "series_outside": d.of}
                               for d in self.departures],
                "against_reference": self.against_reference,
                "resembles": list(self.resembles), "confidence": self.confidence,
                "sureness": self.sureness,
                "signs": [{"panel": s.panel, "sign": s.name, "run": number(s.run),
                           "reference": number(s.reference)} for s in self.signs],
                "findings": [{"panel": f.panel, "sign": f.name, "value": number(f.value),
                              "text": dict(f.text)} for f in self.findings],
                "also_shows": list(self.also), "not_recorded": list(self.not_recorded),
                "not_weighed": list(self.not_weighed),
                "shown_by_reference": list(self.in_reference)}

    def lines(self, lang: str = "en") -> list[str]:
        out = [say(lang, "What the panels of {run} suggest, read against {ref} ({n} of {m} steps):",
                   run=self.run, ref=self.reference, n=self.steps, m=self.reference_steps)]
        return [*out, *self._verdict(lang), *self._evidence(lang),
                say(lang, "A reading of the curves, not a verdict: the thresholds come from "
                          "the course's model.")]

    def _verdict(self, lang: str) -> list[str]:
        """Which of the three kinds the run reads as, how sure, and what else shows."""
        out: list[str] = []
        if self.kind == "healthy":
            out.append(say(lang, "It reads as healthy: no break's signature shows, and every "
                                 "panel stays inside the reference's band."))
        elif self.kind == "differs" and not self.resembles:
            out.append(say(lang, "It differs from its reference in ways no break of the "
                                 "catalog explains: no break's signature shows, yet it leaves "
                                 "the reference's band on panel {panels}.",
                           panels=", ".join(dict.fromkeys(str(d.panel)
                                                          for d in self.departures))))
        elif self.kind == "differs":
            out.append(say(lang, "It differs from its reference in ways no break of the "
                                 "catalog explains: it leaves the reference's band on panel "
                                 "{panels}, which {slugs} does not explain (its signature's "
                                 "panels: {listed}).",
                           panels=", ".join(map(str, self.unexplained)),
                           slugs=" / ".join(self.resembles),
                           listed=", ".join(map(str, self.explained))))
        elif len(self.resembles) == 1:
            slug = self.resembles[0]
            out.append(say(lang, "It resembles {title} ({slug}).",
                           title=self.titles[slug][lang], slug=slug))
        else:
            titles = " / ".join(f"{self.titles[s][lang]} ({s})" for s in self.resembles)
            out.append(say(lang, "It resembles {titles}: a tie, which these panels cannot tell "
                                 "apart.", titles=titles))
        if self.kind == "break":
            out.append(self.sureness_line(lang))
        if self.against_reference:
            out.append(say(lang, "Read against the reference: without the corpus's entropy "
                                 "floor (entropy_floor=) a loss below what the reference reaches "
                                 "is the only mark of a leak. A floor would prove it: no honest "
                                 "model's validation loss goes below it, and a leak from the "
                                 "first evaluation on (unshifted targets) would stand apart from "
                                 "a mask's."))
        kin = [s for s in self.also if s in self.kin]
        others = [s for s in self.also if s not in self.kin]
        if kin:
            out.append(say(lang, "The same setting at another magnitude shows too: {titles}.",
                           titles=" / ".join(f"{self.titles[s][lang]} ({s})" for s in kin)))
        if others:
            out.append(say(lang, "Another break's signature shows too: {titles}.",
                           titles=" / ".join(f"{self.titles[s][lang]} ({s})" for s in others)))
        return out

    def _evidence(self, lang: str) -> list[str]:
        """What weighed, where the run leaves the band, the signs, and what was not weighed."""
        from diagnose.views.panels import format_number

        out: list[str] = []
        if self.findings:
            out.append(say(lang, "What weighed:"))
            out += ["  " + say(lang, "Panel {n}: {text}", n=f.panel, text=f.text[lang])
                    for f in self.findings]
        if self.departures:
            out.append(say(lang, "Where it leaves the reference's band:"))
            out += ["  " + say(lang, "Panel {n}: {text}", n=d.panel, text=d.phrase()[lang])
                    for d in self.departures]
        out.append(say(lang, "Signs (this run / the reference):"))
        shown = say(lang, "not recorded")
        for sign in self.signs:
            if sign.run is not None and not math.isfinite(sign.run) and (
                    sign.reference is None or not math.isfinite(sign.reference)):
                continue  # a figure neither run has (no floor): nothing to print
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


def check_run(run: Path, reference: Path | None, lang: str = "en",
              second_reference: Path | None = None) -> RunReading:
    """Read `run` against `reference` (each a metrics file or its folder); a
    `second_reference`, another healthy seed of the same setup, widens the band."""
    import scenarios

    files, read = _read_runs(run, reference, second_reference, lang)
    run_file, ref_file = files[0], files[1]
    (run_header, run_records), (ref_header, ref_records) = read[0], read[1]
    # a run still training is read against the reference up to the same step
    ref_window = ref_records[:max(len(run_records), 1)]
    header = _figures_header(ref_header)
    run_read = _as_diagnostician_reads(run_records)
    ref_read = _as_diagnostician_reads(ref_window)

    missing = tuple(k for k in (*STEP_OPTIONAL, "entropy_floor")
                    if not (_has(run_header, k) and _has(ref_header, k)))
    every = all_breaks()
    catalog = scenarios.breaks(None)
    floorless = "entropy_floor" in missing
    leak_slugs = leaks()
    # without a floor, a signature is still weighed on what it reads beside the floor (a
    # figure over the floor is NaN to it, and a vote on NaN never shows); the breaks whose
    # mark is the floor itself are read against the reference instead (`leaks`)
    readable = tuple(s for s in every
                     if not set(signature(s).needs) - {"entropy_floor"} & set(missing)
                     and not (floorless and s in leak_slugs))
    peak_step = _peak_step(ref_records)
    ref_read = [{**r, "_peak_step": peak_step} for r in ref_read]
    leaking = tuple(s for s in leak_slugs if s in catalog) if floorless and (
        "val_loss" not in missing) else ()
    fig_ref = own_figures(ref_read, ref_read, header, ref_header, ref_header)
    # a signature the healthy reference shows against itself is a threshold that does not fit
    # this model (the thresholds are the course model's), not a sign: it is not weighed
    in_reference = tuple(s for s in readable if signature(s).vote(fig_ref) > 0)
    weighed = tuple(s for s in _defined(readable, ref_read, fig_ref, catalog)
                    if s not in in_reference)
    fig = own_figures(run_read, ref_read, header, run_header, ref_header)
    votes = votes_of(fig, weighed, leaking)
    seen = _first_seen(run_read, ref_read, (header, run_header, ref_header), readable, catalog,
                       leaking)
    reading = _read(fig, header, votes, leaking, seen, catalog)
    keys = tuple(k for k in ("train_loss", "lr", *STEP_OPTIONAL) if k not in missing)
    departures = bands.departures(run_records, [r for _h, r in read[1:]], keys)
    signs = _signs(fig, fig_ref, missing)
    shown = (*reading.resembles, *reading.also)
    explained, unexplained = _explained(reading.resembles, shown, departures, catalog)
    return RunReading(run=str(run_file), reference=str(ref_file), steps=len(run_records),
                      reference_steps=len(ref_records), resembles=reading.resembles,
                      confidence=reading.confidence, signs=signs,
                      findings=reading.findings, not_recorded=missing,
                      not_weighed=tuple(s for s in every if s not in readable
                                        and s not in leaking),
                      in_reference=in_reference, also=reading.also,
                      titles={s: catalog[s].title for s in shown},
                      departures=tuple(departures), against_reference=reading.against_reference,
                      margin=reading.margin, kin=reading.kin, explained=explained,
                      unexplained=unexplained)


def _first_seen(run_read: list[Any], ref_read: list[Any], headers: tuple[Any, Any, Any],
                readable: tuple[str, ...], catalog: Mapping[str, Any],
                leaking: tuple[str, ...]) -> dict[str, int]:
    """When each mark first showed, at steps 1, 2, 4, ...: the first to show is named first,
    so a reading does not change family as the run trains. `headers`: the figures' header,
    the run's and the reference's."""
    header, run_header, ref_header = headers
    seen: dict[str, int] = {}
    cut = 1
    while cut < len(run_read):
        part_ref = ref_read[:cut]
        part_fig_ref = own_figures(part_ref, part_ref, header, ref_header, ref_header)
        part = tuple(s for s in _defined(readable, part_ref, part_fig_ref, catalog)
                     if signature(s).vote(part_fig_ref) <= 0)
        part_fig = own_figures(run_read[:cut], part_ref, header, run_header, ref_header)
        for slug, vote in votes_of(part_fig, part, leaking).items():
            if vote > 0:
                seen.setdefault(slug, cut)
        cut *= CHECKPOINTS
    return seen


def _read_runs(run: Path, reference: Path | None, second_reference: Path | None, lang: str
               ) -> tuple[list[Path], list[tuple[Any, list[Any]]]]:
    """The metrics files of the run, its reference and a second reference, read and checked:
    each revealed (outside a sealed game), each with a step, all of one setup."""
    if reference is None:
        raise CheckError(
            say(lang, "check needs a reference run of the same model and data"),
            say(lang, "train it healthy once and pass --reference its metrics.jsonl"))
    files = [metrics_path(run), metrics_path(reference)]
    if second_reference is not None:
        files.append(metrics_path(second_reference))
    for path in files:
        refuse_unrevealed(path, lang)
    read = [read_metrics(path) for path in files]
    for path, (_header, records) in zip(files, read, strict=True):
        if not records:
            raise CheckError(say(lang, "{path} has no step yet", path=path))
    for other, path in zip(read[1:], files[1:], strict=True):
        _same_setup(read[0], other, (str(files[0]), str(path)), lang)
    return files, read


def _figures_header(ref_header: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's header as the figures read it: an absent floor is NaN (a figure over
    it never shows), an absent vocabulary size a letter."""
    header = {**ref_header}
    for key in ("entropy_floor", "ln_vocab"):
        header[key] = math.nan if header.get(key) is None else header[key]
    header["vocab_size"] = header.get("vocab_size") or "V"
    return header


def _signs(fig: Mapping[str, float], fig_ref: Mapping[str, float],
           missing: tuple[str, ...]) -> list[Sign]:
    """Each sign `check` prints, for this run and the reference (None: not recorded)."""
    signs = []
    for panel, name, label in SIGNS:
        has = not set(SIGN_NEEDS.get(name, ())) & set(missing)
        signs.append(Sign(panel, name, label, fig[name] if has else None,
                          (1.0 if name in RATIOS else fig_ref[name]) if has else None))
    return signs


def _explained(resembles: tuple[str, ...], shown: tuple[str, ...], departures: Any,
               catalog: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The panels the breaks that show explain, and those where the run leaves the band that
    none of them does (nothing unexplained when no break shows: the run then differs)."""
    explained = tuple(sorted({int(n) for s in shown for n in catalog[s].signature}))
    if set(resembles) & set(leaks()):
        # a model that reads the answer trains on another task: every later panel follows
        explained = EXPLAINING
    unexplained = tuple(sorted({d.panel for d in departures if d.panel in EXPLAINING
                                and d.panel not in explained})) if shown else ()
    return explained, unexplained


# the panels a break must explain when the run leaves the reference's band there: the losses,
# the schedule, the activations and the singular values. A gradient clipped more often and
# more dead heads follow from nearly any break, so they are not asked of its signature.
EXPLAINING = (1, 2, 4, 5)
CLEAR_MARGIN = math.log10(2)  # decades: a mark twice past its threshold, beyond any rival


def format_factor(value: float) -> str:
    return f"{value:.3g}" if math.isfinite(value) else "∞"


def leaks() -> tuple[str, ...]:
    """The breaks whose mark is a loss below the corpus's entropy floor and nothing else (their
    signature reads the validation loss against the floor alone): without a floor, a validation
    and a training loss far below the reference's at the same step stand for them."""
    import scenarios

    return tuple(s for s in scenarios.breaks(None) if "entropy_floor" in signature(s).needs
                 and set(signature(s).needs) <= {"val_loss", "train_loss", "entropy_floor"})


LEAK_RATIO = 0.8  # both losses below this share of the reference's at the same step
# how each setting's dose shows in the figures, for one setting at two magnitudes: the
# figure that measures it against the reference ("ratio": the dose over the healthy one), or
# the step its learning rate peaks at ("step": the warmup's length)
DOSES = {"lr_max": ("lr_peak_ratio", "ratio"), "init_scale": ("spectral0_ratio", "ratio"),
         "warmup_steps": ("lr_peak_step", "step")}


def family(slug: str) -> frozenset[str]:
    """The breaks a reading of a run holding `slug` may name without changing family: those of
    the same setting at another magnitude, and the leaks that leave the same mark (a break not
    in the catalog, or healthy, is its own family)."""
    import scenarios

    catalog = scenarios.breaks(None)
    if slug not in catalog:
        return frozenset({slug})
    knob = set(catalog[slug].override)
    kin = {s for s, brk in catalog.items() if knob and knob & set(brk.override)}
    leak_slugs = set(leaks())
    leaking = leak_slugs if slug in leak_slugs else set()
    return frozenset({slug, *kin, *leaking})


def own_figures(run: list, ref: list, header: dict[str, Any], run_header: dict[str, Any],
                ref_header: dict[str, Any]) -> dict[str, float]:
    """The diagnostician's figures for a run of yours, with what only a run of yours needs:
    the learning rate's start over the run's own peak (`lr_max` of its header, not the
    reference's), and the least-moved matrix's move measured on the reference's scale (a
    matrix that starts ten times larger moves ten times less relatively, and is not frozen);
    a figure read off the leak against the reference where no floor is known."""
    fig = diagnostician.figures(run, ref, header)
    fig["lr0_frac"] = run[0]["lr"] / run_header["lr_max"]
    fig["ref_lr0_frac"] = ref[0]["lr"] / ref_header["lr_max"]
    fig["least_moved"] = _least_moved_on_reference_scale(run, ref)
    fig["ref_least_moved"] = _least_moved_on_reference_scale(ref, ref)
    n = min(len(run), len(ref))
    vals = [(r["val_loss"], q["val_loss"]) for r, q in zip(run[:n], ref[:n], strict=True)
            if r["val_loss"] is not None and q["val_loss"] is not None]
    last = vals[-1] if vals else (math.nan, math.nan)
    fig["val_ref_ratio"] = figures.ratio(*last)
    fig["train_ref_ratio"] = figures.ratio(
        _median_tail(run[:n], "train_loss"), _median_tail(ref[:n], "train_loss"))
    return fig


def _median_tail(records: list, key: str, size: int = 9) -> float:
    import statistics

    values = [r[key] for r in records[-size:] if isinstance(r[key], (int, float))
              and math.isfinite(r[key])]
    return statistics.median(values) if values else math.nan


def _least_moved_on_reference_scale(run: list, ref: list) -> float:
    """Panel 5: the smallest move of a matrix's largest singular value over the run, first step
    to last, over the reference's value of that matrix at step 0."""
    if len(run) < 2 or not run[0]["spectral_norm"] or not run[-1]["spectral_norm"] or not (
            ref and ref[0]["spectral_norm"]):
        return math.nan
    first, last, scale = run[0]["spectral_norm"], run[-1]["spectral_norm"], ref[0][
        "spectral_norm"]
    moves = [abs(last[k] - first[k]) / scale[k] for k in first
             if k in scale and all(math.isfinite(v) for v in (first[k], last[k], scale[k]))
             and scale[k] > 0]
    return min(moves, default=math.nan)


# When a sign is defined, by the setting a break changes: a reading at step s weighs only the
# signs the reference up to s can anchor. A peak learning rate once the reference has reached
# its own peak (before, its warmup is still climbing and every rate is "above" it); a matrix
# that never moved once the reference's least-moved matrix has moved ten times the frozen
# threshold (in the first steps some matrix of any run has barely moved); the clipped share of
# steps once the reference's is half the threshold or less (early on, every run clips often).
DEFINED_WHEN = {
    "lr_max": lambda ref, fig_ref: _peak_reached(ref),
    "frozen_layers": lambda ref, fig_ref: fig_ref["least_moved"] >= 10 * FROZEN_MOVE,
    "attention_logit_scale": lambda ref, fig_ref: fig_ref["clip_share"] <= 0.1,
}
CHECKPOINTS = 2  # readings at steps 1, 2, 4, 8, ...: the order marks appeared in


def _peak_reached(ref: list) -> bool:
    """`ref` holds its schedule's peak learning rate (the full reference's), not just a step of
    its warmup: the records carry the full reference's peak under "_peak"."""
    return bool(ref) and ref[0].get("_peak_step", 0) < len(ref)


def _defined(readable: tuple[str, ...], ref: list, fig_ref: dict[str, float],
             catalog: dict[str, Any]) -> tuple[str, ...]:
    """The breaks of `readable` whose sign is defined against `ref` (`DEFINED_WHEN`)."""
    return tuple(s for s in readable if all(
        DEFINED_WHEN[k](ref, fig_ref) for k in catalog[s].override if k in DEFINED_WHEN))


@dataclass(frozen=True)
class _Reading:
    resembles: tuple[str, ...]
    confidence: float
    margin: float  # decades past the threshold, over the runner-up
    findings: list
    also: tuple[str, ...]
    kin: tuple[str, ...]  # of `also`, those of the named break's setting
    against_reference: bool


def votes_of(fig: dict[str, float], weighed: tuple[str, ...],
             leaks: tuple[str, ...]) -> dict[str, float]:
    """Every weighed break's vote; without a floor, the leak against the reference stands
    for the first of `leaks` (the others tie with it)."""
    votes = diagnostician.votes(fig, weighed)
    if leaks:
        votes[leaks[0]] = min(sig_under(fig["val_ref_ratio"]), sig_under(fig["train_ref_ratio"]))
    return votes


def _read(fig: dict[str, float], header: dict[str, Any], votes: dict[str, float],
          leaks: tuple[str, ...], seen: dict[str, int], catalog: dict[str, Any]) -> _Reading:
    """What the run resembles: one setting at two magnitudes named by the dose its numbers
    match; of the marks that show, the one that showed first (`seen`: the step it first
    showed at) is named, then the strongest."""
    showing = {s: v for s, v in votes.items() if v > 0}
    if not showing:
        best = max(votes.values(), default=-1.0)
        confidence = min(1.0, -best / math.log10(2)) if votes else 0.0
        return _Reading((), round(confidence, 3), -best, [], (), (), False)
    # one setting, several magnitudes: the dose the numbers match
    groups: list[list[str]] = []
    for slug in sorted(showing, key=lambda s: -showing[s]):
        knob = set(catalog[slug].override)
        group = next((g for g in groups if knob and knob & set(catalog[g[0]].override)), None)
        if group is None:
            groups.append([slug])
        else:
            group.append(slug)
    picks = [_by_dose(group, fig, catalog) for group in groups]
    picks.sort(key=lambda s: (min(seen.get(g, math.inf) for g in _group_of(s, groups)),
                              -showing[s]))
    named = picks[0]
    tied = tuple(s for s in votes if s != named and votes[s] == votes[named]
                 and not set(catalog[s].override) & set(catalog[named].override))
    if named in leaks:
        tied = tuple(s for s in leaks if s != named)
    kin = tuple(s for g in groups if named in g for s in g if s != named)
    also = (*kin, *(s for s in picks[1:] if s not in tied))
    rivals = [v for s, v in votes.items() if s != named and s not in tied and s not in kin]
    margin = votes[named] - max(max(rivals, default=0.0), 0.0)
    confidence = round(max(0.0, min(1.0, margin / math.log10(2))), 3)
    if named in leaks:
        findings = _leak_findings(fig)
    else:
        findings = [f for f in diagnostician.findings_for(named, fig, header)
                    if not _quotes_nan(f)]
    return _Reading((named, *tied), confidence, margin, findings, tuple(also), kin,
                    named in leaks)


def _group_of(slug: str, groups: list[list[str]]) -> list[str]:
    return next(g for g in groups if slug in g)


def _peak_step(records: list) -> int:
    """The first step at the schedule's peak learning rate (the end of the warmup)."""
    lrs = [r["lr"] for r in records]
    peak = max((v for v in lrs if math.isfinite(v)), default=math.nan)
    return next((i for i, v in enumerate(lrs) if v >= peak * (1 - 1e-6)), len(lrs))


def sig_under(value: float) -> float:
    from diagnose.diagnosis.signatures import under

    return under(value, LEAK_RATIO)


def _by_dose(group: list[str], fig: dict[str, float], catalog: dict[str, Any]) -> str:
    """Of one setting's breaks that show, the one whose dose the numbers match (peak x10 is
    high-lr, not raised-lr); else the lowest level's."""
    if len(group) == 1:
        return group[0]
    import scenarios

    healthy = scenarios.healthy_config()
    knobs = set.intersection(*(set(catalog[s].override) for s in group)) & set(DOSES)
    for knob in sorted(knobs):
        figure, kind = DOSES[knob]
        measured = fig.get(figure, math.nan)
        if not math.isfinite(measured):
            continue
        if kind == "ratio":
            base = getattr(healthy, knob)
            return min(group, key=lambda s: abs(math.log(max(measured, 1e-12) / (
                catalog[s].override[knob] / base))))
        return min(group, key=lambda s: abs(measured - catalog[s].override[knob]))
    return min(group, key=lambda s: min(catalog[s].levels))


def _quotes_nan(finding: diagnostician.Finding) -> bool:
    """A sentence that would quote a figure nobody can compute here (no floor)."""
    import re

    return bool(re.search(r"\bnan\b", finding.text["en"]))


def _leak_findings(fig: dict[str, float]) -> list[diagnostician.Finding]:
    from diagnose.diagnosis.signatures import said

    return [said(1, "val_ref_ratio", fig,
                 "the validation loss is {val_ref_ratio}x the reference's at the same step, and "
                 "the training loss {train_ref_ratio}x: both fall far below what the healthy "
                 "reference reaches")]
