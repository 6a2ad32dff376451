"""A break's measured claims as data: `breaks/<slug>/claims.toml`, validated into frozen values,
and where the figures they are rendered from are kept.

A text of a break (its summary, its reveal, its row of the signatures page) may quote a figure
measured over many seeds only through a claim: which run kind, which figure, and how the text
states it (a 5th-95th percentile range, a percentile, an extreme, "in k of n" runs). The file
lists, per text, its claims in the order the text makes them, the same in every language:

    engine_differs = ["bad-init|loss0|n"]           # a key of [reveal.LANG], or "summary"
    page = ["bad-init|loss0|range"]                 # its row of the signatures page's deck table
    not_figures = ["2-5", "2 a 5"]   # ranges its texts quote that are no measurement here
    [panels]
    1 = ["bad-init|loss0|range", "reference|clip_share|range%"]   # "%": a share, in percent

A claim's run is the break's own (its slug; "decoy" for the healthy decoy), "reference" or
another break's slug. The figures measured for a run are kept beside its owner: a break's in
`breaks/<slug>/figures.json`, the reference's in `reference-figures.json` beside
`healthy.toml` (`figures_file`), written by `bench/deck_texts.py --load DIR --write` and read
by it and by `tests/test_deck_texts.py`. So deleting a break's folder deletes its claims and
its figures, and a new break brings its own. Nothing the game deals, grades or shows reads
them; the catalog validates a claims file when it loads the break, one `CatalogError` line per
problem. Rendering and checking the texts is `bench/deck_texts.py`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scenarios.config import CatalogError
from scenarios.level_entries import HEALTHY

CLAIMS_FILE = "claims.toml"      # a break folder's claims, beside its break.toml
FIGURES_FILE = "figures.json"    # a break folder's measured figures
REFERENCE_FIGURES = "reference-figures.json"  # the reference's, beside healthy.toml
REFERENCE, DECOY = "reference", "decoy"       # the run kinds no break folder is named after
# how a text states a figure: a 5th-95th percentile range, a percentile, an extreme, a count of
# runs ("in k of n"), or "below:1e-6": a bound every run stays under, as the text writes it
KINDS = ("range", "p5", "p50", "p95", "min", "max", "n", "pos", "zero", "neg", "below")
BOUND = re.compile(r"below:(\d(?:\.\d+)?e-?\d+|\d+(?:\.\d+)?)")  # "below:1e-6", "below:0.5"
TEXT_FIELDS = ("summary", "changed", "engine_differs", "real_world", "page")
NOT_FIGURES = "not_figures"
CLAIMS_MAX = 64  # claims of one text; ours make at most 10
RUN = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
FIGURE = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class Claim:
    """One measured figure a text quotes: `run|figure|kind`, "%" after the kind for a share
    written in percent."""

    run: str
    figure: str
    kind: str
    percent: bool = False
    bound: str = ""   # a "below" claim's bound, as the text writes it ("1e-6")

    @classmethod
    def parse(cls, token: str) -> Claim:
        """A claim as written (`"bad-init|clip_share|range%"`); a `ValueError` saying what is
        wrong otherwise."""
        parts = token.split("|") if isinstance(token, str) else []
        if len(parts) != 3:
            raise ValueError(f"{str(token)[:60]!r}: expected \"run|figure|kind\"")
        run, figure, kind = parts
        bounded = BOUND.fullmatch(kind.removesuffix("%"))
        claim = cls(run, figure, "below" if bounded else kind.removesuffix("%"),
                    kind.endswith("%"), bounded.group(1) if bounded else "")
        if not RUN.fullmatch(run) or len(run) > 64:
            raise ValueError(f"{token[:60]!r}: the run is a slug, {REFERENCE} or {DECOY}")
        if not FIGURE.fullmatch(figure):
            raise ValueError(f"{token[:60]!r}: the figure is a name in lowercase letters, "
                             "digits and underscores")
        if claim.kind not in KINDS or (claim.kind == "below") != bool(claim.bound):
            raise ValueError(f"{token[:60]!r}: the kind is one of {', '.join(KINDS)} "
                             "(\"%\" after it for a share in percent; below:1e-6 for a bound "
                             "every run stays under)")
        return claim

    def __str__(self) -> str:
        kind = f"below:{self.bound}" if self.bound else self.kind
        return f"{self.run}|{self.figure}|{kind}{'%' if self.percent else ''}"


@dataclass(frozen=True)
class Claims:
    """A break's claims file: each text's claims in order (`summary`, `engine_differs`,
    `panels.1`, `page`...), and the ranges or rates its texts quote that measure nothing of
    this engine (a config's "2 of 12 steps", real-world bug reports' "2-5")."""

    texts: dict[str, tuple[Claim, ...]] = field(default_factory=dict)
    not_figures: tuple[str, ...] = ()


def parse_claims(data: dict[str, Any], shown: str, panels: set[str]) -> Claims:
    """A claims file's table: text -> its claims, in order. A text is one of `TEXT_FIELDS` or
    `panels.N` for a panel N the break's reveal has (`panels`)."""
    found: dict[str, tuple[Claim, ...]] = {}
    not_figures: tuple[str, ...] = ()
    for key, value in data.items():
        if key == NOT_FIGURES:
            if (not isinstance(value, list) or len(value) > CLAIMS_MAX
                    or not all(isinstance(v, str) and 0 < len(v) <= 40 for v in value)):
                raise CatalogError(f"{shown}: {NOT_FIGURES}: expected a list of the ranges or "
                                   "rates, as its texts write them, that measure nothing")
            not_figures = tuple(value)
        elif key == "panels":
            if not isinstance(value, dict):
                raise CatalogError(f"{shown}: [panels]: expected a table of panel numbers")
            for number, listed in value.items():
                if number not in panels:
                    raise CatalogError(f"{shown}: [panels] {str(number)[:20]!r}: the reveal has "
                                       "no text for that panel (expected one of "
                                       f"{', '.join(sorted(panels))})")
                found[f"panels.{number}"] = _listed(shown, f"[panels] {number}", listed)
        elif key in TEXT_FIELDS:
            found[key] = _listed(shown, key, value)
        else:
            raise CatalogError(f"{shown}: {str(key)[:40]!r}: unknown key, expected one of "
                               f"{', '.join(TEXT_FIELDS)}, {NOT_FIGURES} or [panels]")
    return Claims(found, not_figures)


def _listed(shown: str, where: str, value: Any) -> tuple[Claim, ...]:
    if not isinstance(value, list) or not value or len(value) > CLAIMS_MAX:
        raise CatalogError(f"{shown}: {where}: expected a list of 1 to {CLAIMS_MAX} claims "
                           '("run|figure|kind")')
    try:
        return tuple(Claim.parse(token) for token in value)
    except ValueError as err:
        raise CatalogError(f"{shown}: {where}: {err}") from None


def figures_owner(run: str) -> str:
    """The break folder whose figures.json holds `run`'s figures ("healthy" for the decoy), or
    `REFERENCE` for the reference's file beside healthy.toml."""
    return HEALTHY if run == DECOY else run
