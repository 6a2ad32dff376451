"""The one attempt policy (`grading.policy.decide`, issue 34) over generated histories: no
attempt made after an answer was shown ever counts; where grading shows the answers at once the
first graded attempt counts; in a class the last one before the answers were shown."""

from __future__ import annotations

import tempfile
from pathlib import Path

from grading_testkit import home_secret, make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from grading import read_attempts
from grading.attempts import Attempt
from grading.policy import SHOWS_AT_ONCE, SHOWS_NOTHING, decide, repeat_of, shown_index


def attempt(n: int, after_reveal: bool = False, sha: str = "") -> Attempt:
    return Attempt(f"2026-12-0{1 + n % 9}T10:00:{n % 60:02d}Z", sha or f"{n:064x}", f"{n}.md",
                   0, 3, after_reveal, "instructor", {}, ())


histories = st.lists(st.booleans(), max_size=8).flatmap(lambda flags: st.tuples(
    st.just([attempt(i, f) for i, f in enumerate(flags)]),
    st.none() | st.integers(0, len(flags)),
    st.sets(st.integers(0, max(len(flags) - 1, 0)), max_size=len(flags))))


@given(histories, st.sampled_from([SHOWS_AT_ONCE, SHOWS_NOTHING]))
def test_no_attempt_after_an_answer_was_shown_ever_counts(history, rule):
    records, shown_from, void = history
    decision = decide(records, rule=rule, shown_from=shown_from, void=void)
    after = {i for i, r in enumerate(records)
             if r.after_reveal or (shown_from is not None and i >= shown_from)}
    assert decision.after_shown == after
    if decision.counted is not None:
        assert decision.counted not in after and decision.counted not in void
    standing = [i for i in range(len(records)) if i not in void]
    if rule == SHOWS_AT_ONCE:  # the first graded attempt, or none when it came after a reveal
        first = standing[0] if standing else None
        assert decision.counted == (None if first is None or first in after else first)
    else:  # the last one before the answers were shown
        before = [i for i in standing if i not in after]
        assert decision.counted == (before[-1] if before else None)


@given(st.lists(st.sampled_from(["grade", "show"]), max_size=10))
def test_generated_grade_and_show_events_never_count_what_came_after(events):
    """A class: gradings and showings in any order; the counted attempt is the last graded
    before the first showing, whatever comes after."""
    records, shown_at = [], []
    for event in events:
        if event == "grade":
            records.append(attempt(len(records)))
        else:
            shown_at.append(len(records))
    shown_from = shown_index(records, ["2026-12-01T00:00:00Z"] * len(shown_at), shown_at)
    decision = decide(records, rule=SHOWS_NOTHING, shown_from=shown_from)
    before = min(shown_at) if shown_at else len(records)
    assert decision.counted == (before - 1 if before else None)


def test_the_same_bytes_are_found_as_an_earlier_attempt():
    records = [attempt(0, sha="a" * 64), attempt(1, sha="b" * 64)]
    assert repeat_of(records, "b" * 64) == 1 and repeat_of(records, "c" * 64) is None


def test_a_showing_marked_without_its_count_falls_back_to_the_times():
    records = [attempt(0), attempt(1), attempt(2)]  # 2026-12-01, -02, -03
    assert shown_index(records, ["2026-12-02T09:00:00Z"]) == 1
    assert shown_index(records, ["2027-01-01T00:00:00Z"]) == 3
    assert shown_index(records, []) is None


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["grade", "same", "reveal"]), min_size=1, max_size=8))
def test_self_study_never_counts_a_grade_after_the_answers_were_shown(events):
    """Self-study gradings and reveals in any order, through the real grader: the first
    grading counts only when nothing was revealed before it, a grading after a reveal never
    counts, and grading the same bytes again is no new attempt."""
    from grading.grade import GradeOptions, grade_workspace

    with tempfile.TemporaryDirectory() as root:
        root = Path(root)
        secret = home_secret()
        workspace = make_workspace(root / "ws", secret)
        file = root / "a.md"
        revealed, graded, copies = False, 0, 0
        counted_first: bool | None = None  # whether the first grading counts
        for event in events:
            if event == "reveal":
                (workspace / "reveal.json").write_text('{"by": "reveal"}')
                revealed = True
                continue
            if event == "grade" or not file.exists():
                copies += 1
                file.write_text(f"## 01\nDiagnosis: no warmup\n<!-- {copies} -->\n")
                new = True
            else:
                new = False
            report = grade_workspace(file, workspace, secret, GradeOptions())
            if new:
                graded += 1
                if graded == 1:
                    counted_first = not revealed
                assert report.counts == (graded == 1 and not revealed)
            else:
                assert report.repeat
            if revealed and new:
                assert not report.counts
            assert len(read_attempts(workspace)) == graded
        records = read_attempts(workspace)
        decision = decide(records, rule=SHOWS_AT_ONCE)
        assert decision.counted == (0 if counted_first else None)
