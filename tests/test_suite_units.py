"""The suite's units of work (tests/conftest.py): every unit its tables name is a file and a
module fixture that exist, so renaming one fails here instead of silently putting two long
trainings back on one worker; and every test lands in exactly one unit, the right one."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import (
    FIRST_RUN_SECONDS,
    SPLIT_BY_FIXTURE,
    SPLIT_IN_PARTS,
    unit_of_report,
    units_of,
)

ROOT = Path(__file__).resolve().parents[1]


def module_fixtures(file: str) -> set[str]:
    tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
            and any("fixture" in ast.unparse(d) and "module" in ast.unparse(d)
                    for d in node.decorator_list)}


def test_every_split_names_a_file_and_its_module_fixtures():
    for file, fixtures in SPLIT_BY_FIXTURE.items():
        assert set(fixtures) <= module_fixtures(file), file
    for file, parts in SPLIT_IN_PARTS.items():
        assert (ROOT / file).is_file() and parts >= 2, file


def test_every_measured_unit_is_one_the_tables_make():
    for unit in FIRST_RUN_SECONDS:
        file, _, part = unit.partition(":")
        assert (ROOT / file).is_file(), unit
        if part:
            assert part in SPLIT_BY_FIXTURE.get(file, ()) or (
                part.isdigit() and 1 <= int(part) <= SPLIT_IN_PARTS.get(file, 0)), unit


@dataclass
class Item:
    nodeid: str
    fixturenames: tuple[str, ...]


FILES = ["tests/test_cluster.py", "tests/tui/test_app.py", "tests/test_other.py"]


@given(st.lists(st.tuples(st.sampled_from(FILES), st.sets(st.sampled_from(
    ["deck", "trained", "tmp_path", "local_cluster"]))), min_size=1, max_size=40))
def test_each_test_lands_in_one_unit_of_its_file(tests):
    items = [Item(f"{file}::test_{i}[a@b]", tuple(fixtures))
             for i, (file, fixtures) in enumerate(tests)]
    units = units_of(items)
    assert set(units) == {item.nodeid for item in items}
    for item in items:
        file = item.nodeid.split("::")[0]
        unit = units[item.nodeid]
        assert unit.partition(":")[0] == file
        if file == "tests/test_cluster.py":
            assert unit == (f"{file}:local_cluster" if "local_cluster" in item.fixturenames
                            else file)
        elif file == "tests/tui/test_app.py":
            assert unit in (f"{file}:1", f"{file}:2")
        else:
            assert unit == file
        # a worker's report names the unit after the `@` xdist appends, whatever the id holds
        assert unit_of_report(f"{item.nodeid}@{unit}") == unit
    parts = [units[i.nodeid] for i in items if i.nodeid.startswith("tests/tui/test_app.py")]
    assert parts == sorted(parts)  # each part is a run of the file's tests, in their order


def test_a_setting_a_test_leaves_is_gone_after_it():
    """What `--deck` does inside a test (it sets the variable itself) is undone with the test,
    whether the variable was there before or not."""
    import os

    import pytest

    from scenarios.catalog import DECK_SETTING
    from tests.conftest import forget_settings

    before = os.environ.pop(DECK_SETTING, None)
    try:
        for outside in (None, "/a/deck/outside"):
            if outside is not None:
                os.environ[DECK_SETTING] = outside
            patch = pytest.MonkeyPatch()
            forget_settings(patch)
            assert DECK_SETTING not in os.environ
            os.environ[DECK_SETTING] = "/a/deck/the/test/set"
            patch.undo()
            assert os.environ.get(DECK_SETTING) == outside
    finally:
        os.environ.pop(DECK_SETTING, None)
        if before is not None:
            os.environ[DECK_SETTING] = before
