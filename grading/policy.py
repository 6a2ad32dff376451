"""The one attempt policy: which attempt counts, for self-study, class grading, the Gradescope
autograder and the app alike (`decide`; nothing else chooses).

**The attempt that counts is the last one made before any answer of that scenario was shown to
that student** (a reveal, a what-if, a grade's feedback, a Gradescope result made visible).

- Where every grading shows the answers at once (`SHOWS_AT_ONCE`: self-study, whose grading
  reveals; Gradescope, which cannot know when grades are published), that is the first graded
  attempt; an attempt made after a reveal never counts, so a first attempt after one leaves
  none that counts.
- Class grading shows the student nothing (`SHOWS_NOTHING`): a corrected file handed in later
  replaces a draft, until the instructor shows the answers (`ledger.mark_shown`); from then on
  no attempt counts but the last one before.
- Grading the same bytes again is not a new attempt (`repeat_of`). An attempt after an answer
  was shown is graded and never counts. A cancelled attempt (`void`) never counts. A level
  passes only on an attempt that counts (`Report.counts`).

stdlib only. Not here: recording attempts (`attempts`, `ledger`) or the words (`feedback`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from grading.attempts import Attempt

SHOWS_AT_ONCE = "first"  # self-study and Gradescope: the first graded attempt
SHOWS_NOTHING = "last-before-shown"  # class grading: the last attempt before answers shown
RULES = (SHOWS_AT_ONCE, SHOWS_NOTHING)


@dataclass(frozen=True)
class Decision:
    """Which of a student's attempts counts (`counted`, an index, None: none does), and which
    were made after an answer was shown (`after_shown`, indices)."""

    counted: int | None
    after_shown: frozenset[int]


def decide(records: Sequence[Attempt], *, rule: str, shown_from: int | None = None,
           void: Collection[int] = ()) -> Decision:
    """The attempt that counts among `records` (in the order they were made).

    `shown_from`: the index of the first attempt made after the instructor showed the answers
    (None: never shown); a record's own `after_reveal` marks it too. `void`: indices that never
    count (cancelled, or not this course's). See the module docstring for the rule."""
    if rule not in RULES:
        raise ValueError(f"rule {rule!r}: expected one of {', '.join(RULES)}")
    after = frozenset(i for i, record in enumerate(records)
                      if record.after_reveal or (shown_from is not None and i >= shown_from))
    standing = [i for i in range(len(records)) if i not in void]
    if rule == SHOWS_AT_ONCE:
        first = standing[0] if standing else None
        return Decision(None if first is None or first in after else first, after)
    before = [i for i in standing if i not in after]
    return Decision(before[-1] if before else None, after)


def repeat_of(records: Sequence[Attempt], sha256: str) -> int | None:
    """The index of an earlier attempt of these very bytes: grading them again is no attempt."""
    return next((i for i, record in enumerate(records) if record.sha256 == sha256), None)


def shown_index(records: Sequence[Attempt], shown: Sequence[str],
                marked_at: Sequence[int | None] = ()) -> int | None:
    """The index of the first of `records` made after the answers were first shown: from the
    number of records the ledger held when each showing was marked (`marked_at`), else, for a
    showing marked without it, from the times (an attempt at or after it is after)."""
    firsts = []
    for place, when in enumerate(shown):
        count = marked_at[place] if place < len(marked_at) else None
        if count is not None:
            firsts.append(count)
        else:
            firsts.append(next((i for i, r in enumerate(records) if r.time >= when),
                               len(records)))
    return min(firsts) if firsts else None
