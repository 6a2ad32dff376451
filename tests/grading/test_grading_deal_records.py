"""The records `diagnose deal` keeps beside the bundles (grading.dealt): deal-settings.json and
deal-digests.json are read by one reader; absent is None, anything deal did not write is one
GradeError line naming the file, never a traceback and never a record believed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.dealt import (
    DEAL_SETTINGS,
    DIGESTS,
    DIGESTS_SCHEMA,
    read_digests,
    read_redeals,
    read_settings,
)
from scenarios.errors import UserError

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def test_absent_records_are_none(tmp_path):
    assert read_settings(tmp_path) is None and read_digests(tmp_path) is None
    assert read_redeals(tmp_path) == {}


def test_what_deal_writes_reads_back(tmp_path):
    (tmp_path / DEAL_SETTINGS).write_text(json.dumps({"steps": 3, "lang": "es"}))
    digests = {"schema": DIGESTS_SCHEMA, "students": {"ana": {"01": "ab" * 32}},
               "redealt": {"ana": ["2026-12-05T01:00:00Z"]}}
    (tmp_path / DIGESTS).write_text(json.dumps(digests))
    assert read_settings(tmp_path) == {"steps": 3, "lang": "es"}
    assert read_digests(tmp_path) == {"ana": {"01": "ab" * 32}}
    assert read_redeals(tmp_path) == {"ana": ["2026-12-05T01:00:00Z"]}


@pytest.mark.parametrize("text", ["", "not json", "null", "[]", "3", '"x"', "{"])
def test_a_settings_file_deal_did_not_write_is_one_line(tmp_path, text):
    (tmp_path / DEAL_SETTINGS).write_text(text)
    with pytest.raises(UserError) as caught:
        read_settings(tmp_path)
    assert str(caught.value) == (f"{tmp_path / DEAL_SETTINGS}: corrupt (not the JSON "
                                 "`diagnose deal` wrote)")


@given(data=JSON)
def test_digests_deal_did_not_write_are_refused_in_one_line(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("deal")
    (folder / DIGESTS).write_text(json.dumps(data))
    try:
        found = read_digests(folder)
    except UserError as err:
        assert str(err) == f"{folder / DIGESTS}: corrupt (not the JSON `diagnose deal` wrote)"
    else:  # only a record of deal's own shape is believed
        assert isinstance(data, dict) and data.get("schema") == DIGESTS_SCHEMA
        assert found == data["students"]
