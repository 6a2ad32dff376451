"""A file's size, mode or time must not name a break, and a scenario's bytes must not drift.

Within each scenario every run's `metrics.jsonl` has one size (fixed-width numbers) and every
`dashboard.html` one size (trailing padding), with one mode and one mtime; checked on eight
dealt scenarios of short real runs. The metrics bytes of a fixed code, secret and step count
are pinned by their sha256: a refactor that changes them fails here, on purpose.
"""

from __future__ import annotations

import base64
import hashlib

import pytest

from diagnose import classroom
from diagnose.metrics import read_metrics
from diagnose.scenario import ScenarioSpec, create_scenario
from diagnose.workspace import open_workspace
from grading.seal import new_secret

CLASS = 8  # scenarios dealt, 32 runs
FIXED_SECRET = base64.urlsafe_b64encode(bytes(range(32)))
PINNED = {  # sha256 of each run's metrics.jsonl for code PINNED-1, FIXED_SECRET, 5 steps
    "reference": "f5762c273978c775bb6798af5aa2dddbae5974e10d4c48708ec924f81e7bedd0",
    "01": "8f3cd0d3ddb81f278e2da6678bb731ca61590597ba2b6b2f4f7904ee4737d890",
    "02": "311dfcd84453091e8ced7936dad963b0bcabf11297a2f9ac36696d527069ca01",
    "03": "d89691754247f9a7b37dd8abfb62bbd0455fc9ca78688695da685b03b905a2af",
}


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    out = tmp_path_factory.mktemp("class") / "bundles"
    classroom.deal(out, classroom.numbered_students(CLASS), new_secret(), steps=5)
    return [open_workspace(classroom.bundle_dir(out, s.name))
            for s in classroom.numbered_students(CLASS)]


@pytest.mark.parametrize("name", ["metrics.jsonl", "dashboard.html"])
def test_every_run_of_a_scenario_has_one_size_mode_and_time(dealt, name):
    assert len(dealt) == CLASS
    for workspace in dealt:
        stats = {run: (workspace.path / run / name).stat() for run in workspace.runs}
        assert len({s.st_size for s in stats.values()}) == 1, \
            f"{workspace.code}: {name} sizes {[s.st_size for s in stats.values()]}"
        assert len({s.st_mode for s in stats.values()}) == 1
        assert len({s.st_mtime_ns for s in stats.values()}) == 1


def test_padding_is_ignored_by_the_readers(dealt):
    workspace = dealt[0]
    for run in workspace.runs:
        header, records = read_metrics(workspace.metrics_path(run))
        assert header["run"] == run and len(records) == 5
        page = workspace.dashboard_path(run).read_text(encoding="utf-8")
        assert page.rstrip().endswith("</html>")


def test_metrics_bytes_are_pinned(tmp_path):
    workspace = create_scenario(tmp_path / "ws", ScenarioSpec(code="PINNED-1", steps=5),
                                secret=FIXED_SECRET)
    digests = {run: hashlib.sha256(workspace.metrics_path(run).read_bytes()).hexdigest()
               for run in workspace.runs}
    assert digests == PINNED
