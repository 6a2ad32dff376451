"""How many examples a property test tries (tests/conftest.py's two hypothesis profiles).

The suite's default profile ("same") is derandomized: every run tries the same examples, so it
is a fixed, repeatable proof and its cost is paid on every run (the suite's 90 s on two cores).
There a large budget is halved: `examples(300)` tries 150. With DIAGNOSE_HYPOTHESIS=random
(fresh examples each run, for a nightly or a release) every test tries its whole budget.
Budgets under 100 are kept as written: they were sized to what each example costs.
"""

from __future__ import annotations

import os

RANDOM_EXAMPLES = os.environ.get("DIAGNOSE_HYPOTHESIS") == "random"
DEFAULT = 100  # hypothesis's own default budget, the random profile's
SAME_DEFAULT = 50  # the derandomized profile's default, for a test that states none


def examples(budget: int) -> int:
    """`budget` examples in the random profile; half of a budget of 100 or more otherwise."""
    return budget if RANDOM_EXAMPLES or budget < DEFAULT else budget // 2
