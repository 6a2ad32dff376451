"""A break's fidelity promises as data: break.toml's `[[promises]]`, validated into frozen values.

Each entry is one promise, in the order the fidelity bench lists them:

    [[promises]]
    figure = "spectral0_ratio"   # a figure of the diagnostician's
    (`diagnose.diagnosis.diagnostician`)
    at_least = 2                 # exactly one of at_least, at_most, above, below, between
    wanted = ">= 2x at step 0"   # what the bench prints beside the number

    [[promises]]
    computed = "same_lr"         # a check the break's signature.py computes, placed here

`between = [low, high]` holds both ends. A promise holds on every seed unless its entry says
`rate = 0.75`: a "usually" promise, kept when it holds on at least that share of the seeds
`bench/fidelity.py` trains (the rate it measured is printed beside it), so one seed where it
does not hold is a data point, not a failure. Any entry, computed ones too, may give a rate.
A promise that needs the run, the reference or the header (a schedule kept step for step, a
bound that follows the entropy floor) is code: its entry names it (`computed`) and
`Signature.computed` returns it. Figure names are checked where `diagnose` loads the signature
(the figures are computed there); everything else is checked here, each problem one
`CatalogError` line naming the file, the entry and what was expected.
Nothing here computes a figure or runs a break's code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from scenarios.config import CatalogError

COMPARISONS = ("at_least", "at_most", "above", "below", "between")
COMPUTED = "computed"  # an entry placing a promise that signature.py computes
RATE = "rate"  # the share of seeds a "usually" promise must hold on (default 1: every seed)
PROMISE_KEYS = ("figure", *COMPARISONS, "wanted", COMPUTED, RATE)
PROMISES_MAX = 16  # entries of one break; ours hold at most 7
NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")  # a figure's or a computed promise's name


@dataclass(frozen=True)
class PromiseSpec:
    """One `[[promises]]` entry: a bound on a figure, or the place of a computed promise."""

    name: str                  # the figure it bounds, or the computed promise's name
    comparison: str            # one of COMPARISONS, or COMPUTED
    bounds: tuple[float, ...] = ()  # one number as written (an int stays one); (low, high)
                                    # for between; none when computed
    wanted: str = ""           # what the bench prints beside the number; none when computed
    rate: float = 1            # the share of seeds it must hold on: 1 every seed, less usually


def kept_at_rate(passed: int, seeds: int, rate: float) -> bool:
    """A promise of `rate` held on `passed` of `seeds` seeds: on every one for rate 1, else on
    at least that share of them (0.75 of 40: 30)."""
    return seeds > 0 and passed >= math.ceil(rate * seeds - 1e-9)


def parse_promises(shown: str, listed: Any) -> tuple[PromiseSpec, ...]:
    """break.toml's `promises` (an array of tables), each entry checked in order."""
    if listed is None:
        return ()
    if (not isinstance(listed, list) or not all(isinstance(t, dict) for t in listed)
            or len(listed) > PROMISES_MAX):
        raise CatalogError(f"{shown}: [[promises]]: expected up to {PROMISES_MAX} tables, "
                           "one per promise")
    specs: list[PromiseSpec] = []
    for number, table in enumerate(listed, 1):
        spec = _entry(f"{shown}: [[promises]] {number}", table)
        if any(s.name == spec.name for s in specs):
            raise CatalogError(f"{shown}: [[promises]] {number}: {spec.name} is already "
                               "promised above; one entry per name")
        specs.append(spec)
    return tuple(specs)


def _entry(where: str, table: dict[str, Any]) -> PromiseSpec:
    for key in table:
        if key not in PROMISE_KEYS:
            raise CatalogError(f"{where}: {key!r}: unknown key, expected one of "
                               + ", ".join(PROMISE_KEYS))
    rate = _rate(where, table[RATE]) if RATE in table else 1
    if COMPUTED in table:
        if set(table) - {RATE} != {COMPUTED}:
            raise CatalogError(f"{where}: computed = \"<name>\" stands alone, a rate aside "
                               "(signature.py computes that promise, its bound and its wanted "
                               "text)")
        return PromiseSpec(_named(where, COMPUTED, table[COMPUTED]), COMPUTED, rate=rate)
    compared = [key for key in COMPARISONS if key in table]
    if len(compared) != 1:
        raise CatalogError(f"{where}: expected exactly one of " + ", ".join(COMPARISONS)
                           + f", got {len(compared)}")
    comparison = compared[0]
    name = _named(where, "figure", table.get("figure"))
    wanted = table.get("wanted")
    if not isinstance(wanted, str) or not wanted.strip() or "\n" in wanted:
        raise CatalogError(f"{where}: wanted: expected one line of text (what the bench "
                           "prints beside the number)")
    return PromiseSpec(name, comparison, _bounds(where, comparison, table[comparison]),
                       wanted.strip(), rate)


def _rate(where: str, value: Any) -> float:
    if not _number(value) or not 0 < value <= 1:
        raise CatalogError(f"{where}: rate: expected the share of seeds it holds on, a number "
                           f"above 0 and at most 1 (0.75: on 3 seeds of 4), got {value!r}")
    return float(value)


def _named(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise CatalogError(f"{where}: {key}: expected a name in lowercase letters, digits and "
                           f"underscores, got {value!r}")
    return value


def _bounds(where: str, comparison: str, value: Any) -> tuple[float, ...]:
    if comparison == "between":
        if not isinstance(value, list) or len(value) != 2 or not all(map(_number, value)):
            raise CatalogError(f"{where}: between: expected [low, high], two finite numbers")
        if value[0] > value[1]:
            raise CatalogError(f"{where}: between: expected low <= high, got "
                               f"[{value[0]}, {value[1]}]")
        return (value[0], value[1])
    if not _number(value):
        raise CatalogError(f"{where}: {comparison}: expected a finite number, got {value!r}")
    return (value,)


def _number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) <= 2**63  # TOML's integers; a larger one is no bound anyone meant
    return isinstance(value, float) and math.isfinite(value)
