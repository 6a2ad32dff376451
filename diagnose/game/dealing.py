"""The deal: a scenario's code and secret decide which break each ID holds and every run's seed.

The permutation of the breaks behind `01 02 03` is an HMAC-SHA256 of the code under the secret
(`grading.dealt`, which the grader derives the same way), uniform over the orderings; each run's
training seed is another. `plan_rounds` plans every round a scenario may need (`REDEALS`, the same
deal with fresh seeds) on the dealer's machine; `train_rounds` trains them until the automatic
diagnostician tells the runs apart. Training needs no secret (`diagnose.game.training`), so a
cluster's workers get plans, never keys.
"""

from __future__ import annotations

import dataclasses
import re
import secrets as secrets_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import scenarios
from diagnose.workspace import (
    REFERENCE,
)
from grading.dealt import assignment, hmac_int, run_ids
from scenarios.errors import UserError

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U: read aloud safely


CODE_MAX = 64


REDEALS = 3


class ScenarioError(UserError):
    """A scenario cannot be made as asked; one line saying why and what to do."""


def new_code() -> str:
    """A fresh random code like `7KQ2-M9XF`."""
    chars = [secrets_module.choice(CODE_ALPHABET) for _ in range(8)]
    return "".join(chars[:4]) + "-" + "".join(chars[4:])


# A code is written into the diagnoses file's `<!-- scenario: CODE -->` comment: nothing in it
# may end the comment early or open markup.
CODE_FORBIDDEN = re.compile(r"[<>]|--")


def check_code(code: str) -> str:
    """Instructors name their seeds as they like: printable text of 1-64 characters, no `<>--`."""
    allowed = ("letters, digits, spaces and punctuation except '<' and '>', with no two "
               "dashes in a row")
    if not 1 <= len(code) <= CODE_MAX:
        raise ScenarioError(f"scenario code must have 1 to {CODE_MAX} characters, "
                            f"got {len(code)}")
    if not code.isprintable() or code != code.strip():
        raise ScenarioError(f"scenario code {code!r} must be printable text on one line, "
                            f"without leading or trailing spaces ({allowed})")
    if CODE_FORBIDDEN.search(code):
        raise ScenarioError(f"scenario code {code!r} cannot hold '<', '>' or '--' (it is "
                            f"saved in an HTML comment); use {allowed}")
    return code


def training_seed(secret: bytes, code: str, run: str, redeal: int = 0) -> int:
    return hmac_int(secret, "seed", code, run, str(redeal)) % 2**63


def planned_runs(level: int | None = None) -> tuple[str, ...]:
    """The runs a fresh scenario of `level` (the first level by default) will have, known
    before it trains: the reference, then its entry's IDs."""
    dealt = scenarios.level(level) if level is not None else scenarios.first_level()
    return (REFERENCE, *run_ids(dealt.runs))


@dataclass(frozen=True)
class RunPlan:
    run: str          # "reference" or an ID
    config: scenarios.Config
    seed: int


def plan_runs(secret: bytes, code: str, level: scenarios.Level, steps: int,
              redeal: int = 0) -> tuple[dict[str, str], list[RunPlan]]:
    """The deal of `level` and one plan per run; the healthy decoy trains the reference's
    config from its own ID's seed."""
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=steps)
    deal = assignment(secret, code, level)
    catalog = scenarios.breaks(None)
    plans = [RunPlan(REFERENCE, healthy, training_seed(secret, code, REFERENCE, redeal))]
    plans += [RunPlan(rid, catalog[slug].apply(healthy), training_seed(secret, code, rid, redeal))
              for rid, slug in deal.items()]
    return deal, plans


Rounds = list[tuple[dict[str, str], list[RunPlan]]]  # (deal, plans) per round


def plan_rounds(secret: bytes, code: str, steps: int, level: int = 1) -> Rounds:
    """Every round a scenario may need (`REDEALS`): the same deal, each with fresh seeds.
    Planned from the secret on the dealer's machine; training them needs no secret."""
    entry = scenarios.level(level)
    return [plan_runs(secret, code, entry, steps, redeal) for redeal in range(REDEALS)]


Verdict = Callable[[dict[str, list[dict[str, Any]]], dict[str, str]], bool]


def checks_runs(steps: int) -> bool:
    """Whether a deal of `steps` is checked by the diagnostician: a full-length one only (a
    shortened run has not shown its signatures yet)."""
    return steps == scenarios.healthy_config().steps


def deal_check(deck: Sequence[str]) -> Verdict:
    """The automatic diagnostician's check, against a level's `deck`, that every run shows its
    break (and the decoy none)."""
    from diagnose.diagnosis.diagnostician import runs_distinguishable

    return lambda records, deal: runs_distinguishable(records, deal, deck=deck)


def train_rounds(rounds: Rounds, train: Callable[[list[RunPlan]], dict[str, list[dict[str, Any]]]],
                 check: Verdict | None, on_redeal: Callable[[int], None] | None = None
                 ) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """Train each round until `check` tells its runs apart (every round passes without one),
    or the last round, which is kept whatever it shows; (the kept round, its records by run).
    `on_redeal(round)` hears of each round refused before another is trained. Local deals
    (`create_scenario`) and a cluster's tasks (`diagnose.classroom.cluster.train_scenario`) both
    deal
    through here."""
    for kept, (deal, plans) in enumerate(rounds):
        records = train(plans)
        if check is None or kept == len(rounds) - 1 or check(records, deal):
            return kept, records
        if on_redeal is not None:
            on_redeal(kept)
    raise ScenarioError("no round to train")


def redeal_message(code: str, failed: int) -> str:
    """What a dealer is told when round `failed` (from 0) was refused and another trains."""
    return (f"scenario {code}: the runs could not be told apart from their metrics (deal "
            f"{failed + 1}); trained again with fresh seeds")
