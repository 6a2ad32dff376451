"""`manifest.csv` has one reader and one writer (`grading.manifest`), used by the dealer, the
class grader and the Gradescope packer alike: what one writes, every other reads the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.manifest import (
    COLUMNS,
    ManifestError,
    ManifestRow,
    is_folder_name,
    manifest_path,
    read_manifest,
    write_manifest,
)
from scenarios.langs import LANGS

CELL = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
               max_size=12).map(str.strip)
NAME = CELL.filter(is_folder_name)
ROW = st.builds(ManifestRow, NAME, CELL, CELL, CELL, st.sampled_from(["", *LANGS]))


@given(rows=st.lists(ROW, max_size=6))
def test_what_the_writer_writes_reads_back_the_same(tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("deal")
    write_manifest(folder, rows)
    assert read_manifest(folder) == rows


@given(rows=st.lists(ROW, min_size=1, max_size=4), order=st.permutations(COLUMNS[2:]),
       header=st.sampled_from(["student,code", "Student,Code", " STUDENT ,code"]))
def test_a_header_names_the_columns_after_student_and_code(tmp_path_factory, rows, order,
                                                          header):
    folder = tmp_path_factory.mktemp("deal")
    lines = [",".join([header, *order])]
    lines += [",".join([row.student, row.code, *(getattr(row, c) for c in order)])
              for row in rows if "," not in "".join(row) and '"' not in "".join(row)]
    manifest_path(folder).write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = [row for row in rows if "," not in "".join(row) and '"' not in "".join(row)]
    assert read_manifest(folder) == expected


def test_an_older_manifest_reads_positionally_and_a_missing_column_is_empty(tmp_path):
    manifest_path(tmp_path).write_text("ana,AAAA-1111,ana@uni.es,2\n\nbeto,BBBB-2222\n",
                                       encoding="utf-8")
    assert read_manifest(tmp_path) == [ManifestRow("ana", "AAAA-1111", "ana@uni.es", "2"),
                                       ManifestRow("beto", "BBBB-2222")]
    assert read_manifest(tmp_path / "none") == []


@pytest.mark.parametrize(("text", "message"), [
    ("student,code\n..,C\n", "row 2: '..' is not a student's folder name"),
    ("a/b,C\n", "row 1: 'a/b' is not a student's folder name"),
    ("student,code,lang\nana,C,fr\n", "row 2: lang 'fr' is not one of en, es"),
    ("ana," + "x" * 200_000 + "\n", "not a CSV manifest"),
])
def test_a_row_no_reader_could_use_is_refused_in_one_line(tmp_path, text, message):
    manifest_path(tmp_path).write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError, match=message) as raised:
        read_manifest(tmp_path)
    assert "\n" not in str(raised.value)


def test_no_other_function_parses_a_manifest():
    """The manifest was once parsed in three places with three header rules: a function that
    names the manifest and parses CSV belongs in `grading.manifest`."""
    import ast

    root = Path(__file__).resolve().parents[2]
    parsers = {"loads_csv", "read_csv", "reader", "DictReader"}
    found = []
    for package in ("diagnose", "grading", "scenarios"):
        for path in (root / package).rglob("*.py"):
            if path == root / "grading" / "manifest.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.FunctionDef):
                    continue
                names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                         if isinstance(n, ast.Name | ast.Attribute)}
                if names & parsers and names & {"MANIFEST", "manifest_path"}:
                    found.append(f"{path.relative_to(root)}:{node.name}")
    assert found == []
