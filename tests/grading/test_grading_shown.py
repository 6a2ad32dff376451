"""The ledger keeps when the instructor showed a student their answers (issue 34/35): kept sealed
beside the attempts, through every later grading; older ledgers read with none."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from grading_testkit import make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from grading import DEFAULT_DIR, GradeError, grade_bundles
from grading.ledger import LEDGER, mark_shown, read_ledger
from grading.seal import new_secret

CODES = {"borja": "AAAA-1111", "ana": "BBBB-2222"}
TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}
RIGHT = "## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: broken mask\n## 03\nDiagnosis: bad init\n"
KEY = new_secret()


@pytest.fixture
def bundles(tmp_path):
    folder = tmp_path / "bundles"
    for student, code in CODES.items():
        make_workspace(folder / student / DEFAULT_DIR, KEY, code, TRUTH, "instructor")
    (folder / "manifest.csv").write_text(
        "student,code\n" + "".join(f"{s},{c}\n" for s, c in CODES.items()))
    return folder


def grade(bundles, tmp_path, student="ana"):
    path = tmp_path / f"{student}-diagnoses.md"
    path.write_text(f"# Diagnoses — {student}\n" + RIGHT, encoding="utf-8")
    return grade_bundles([path], bundles, KEY)


def test_shown_is_kept_sealed_and_survives_a_grading(bundles, tmp_path):
    grade(bundles, tmp_path)
    mark_shown(bundles, KEY, ["ana"], when="2026-12-04T22:30:00Z", what="reveal")
    kept = read_ledger(bundles, KEY)
    assert kept["ana"].shown == ("2026-12-04T22:30:00Z",)
    assert kept["ana"].shown_what == ("reveal",)
    assert kept["ana"].count == 1  # the attempt is still there
    grade(bundles, tmp_path, "ana")
    grade(bundles, tmp_path, "borja")
    kept = read_ledger(bundles, KEY)
    assert kept["ana"].shown == ("2026-12-04T22:30:00Z",)
    assert kept["borja"].shown == ()


def test_a_student_without_attempts_gets_an_entry_and_times_stay_in_order(bundles):
    mark_shown(bundles, KEY, ["borja", "ana"], when="2026-12-05T10:00:00Z", what="answers")
    mark_shown(bundles, KEY, ["borja"], when="2026-12-04T09:00:00Z", what="reveal")
    kept = read_ledger(bundles, KEY)
    assert kept["borja"].shown == ("2026-12-04T09:00:00Z", "2026-12-05T10:00:00Z")
    assert kept["borja"].shown_what == ("reveal", "answers")
    assert kept["borja"].first_shown == "2026-12-04T09:00:00Z"
    assert kept["ana"].count == 0 and kept["ana"].records == ()


def test_an_edited_showing_breaks_the_seal(bundles):
    mark_shown(bundles, KEY, ["ana"], when="2026-12-04T22:30:00Z", what="reveal")
    path = bundles / LEDGER
    data = json.loads(path.read_text())
    data["students"]["ana"]["shown"] = []
    path.write_text(json.dumps(data))
    with pytest.raises(GradeError, match="seal"):
        read_ledger(bundles, KEY)


def test_an_old_ledger_reads_with_nothing_shown(bundles, tmp_path):
    grade(bundles, tmp_path)
    data = json.loads((bundles / LEDGER).read_text())
    assert "shown" not in json.dumps(data)  # what older versions wrote, byte for byte
    assert read_ledger(bundles, KEY)["ana"].shown == ()


@pytest.mark.parametrize("when", ["2026-12-04 22:30", "yesterday", "2026-12-04T22:30:00+01:00"])
def test_a_time_that_is_not_utc_is_refused_and_nothing_recorded(bundles, when):
    with pytest.raises(GradeError, match="ISO-8601"):
        mark_shown(bundles, KEY, ["ana"], when=when, what="reveal")
    assert not (bundles / LEDGER).exists()


UTC_TIMES = st.datetimes(min_value=datetime(2000, 1, 1)).map(
    lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))


@settings(max_examples=30)
@given(st.lists(st.tuples(st.sampled_from(sorted(CODES)), UTC_TIMES, st.text(max_size=20)),
                max_size=6))
def test_every_showing_is_kept_in_time_order(tmp_path_factory, events):
    folder = tmp_path_factory.mktemp("deal")
    for name, when, what in events:
        mark_shown(folder, KEY, [name], when=when, what=what)
    kept = read_ledger(folder, KEY)
    for name in CODES:
        mine = sorted((w, x) for n, w, x in events if n == name)
        mark = kept.get(name)
        got = list(zip(mark.shown, mark.shown_what, strict=True)) if mark else []
        assert got == mine
