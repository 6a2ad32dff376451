"""Every reader of a file, fed hostile bytes: no traceback anywhere, one clear line or a
documented recovery (issue 20, "one bounded reader per format").

Each reader is given the same hostile contents in its own file's place: nesting 30,000 deep
(JSON arrays, JSON objects, TOML inline tables), a file cut in half, bytes that are not UTF-8
(Latin-1, UTF-16, a lone 0xff), a NUL byte, a lone surrogate escape, and a file over its size
cap (sparse, so it costs no disk). A reader must return, or raise a `UserError` whose message is
one line; a RecursionError, UnicodeError or any other exception fails the test. The same files
go through the CLI: `grade --check`, `show`, `play` opening a workspace, `progress`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from scenarios.errors import UserError

DATA = Path(__file__).resolve().parent / "tui" / "data"
SECRET = b"Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE="
VALID = {  # a whole file of each kind, cut in half for "truncated"
    "json": b'{"schema": "diagnose.x/1", "levels": {"1": {}}, "students": {}}\n',
    "toml": b'slug = "x"\nlevel = 1\n[title]\nen = "x"\nes = "x"\n',
    "csv": b"student,code,email,level\nana,7KQ2-M9XF,ana@uni.es,2\n",
    "md": b"# Diagnoses \xe2\x80\x94 Ana\n## 01\nDiagnosis: bad init\n",
}
HOSTILE = {
    "nested arrays": b"[" * 30_000,
    "nested objects": b'{"a":' * 30_000,
    "nested lines": b'{"schema": "diagnose.metrics/1"}\n' + b"[" * 30_000 + b"\n",
    "nested TOML": b"a = " + b"{b = " * 30_000,
    "Latin-1": '{"name": "Jos\u00e9"}'.encode("latin-1"),
    "UTF-16": '{"a": 1}'.encode("utf-16"),
    "a lone 0xff": b'{"a": "\xff"}',
    "a NUL byte": b'{"a": 1}\x00',
    "a lone surrogate": b'{"schema": "\\ud800", "code": "\\udfff"}',
    "empty": b"",
}


def _files(kind: str) -> dict[str, bytes]:
    return {**HOSTILE, "truncated": VALID[kind][: len(VALID[kind]) // 2]}


def _one_line(call: Callable[[], object]) -> None:
    try:
        call()
    except UserError as err:
        assert "\n" not in str(err), str(err)


def _put(path: Path, data: bytes | None, huge: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if huge:
        with path.open("wb") as stream:
            stream.truncate(64 * 1024 ** 2)  # sparse: over every cap, nothing on disk
    else:
        path.write_bytes(data or b"")
    return path


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "experiments" / "19-break-it"
    shutil.copytree(DATA / "scenario", ws)
    return ws


def _readers(tmp_path: Path) -> dict[str, tuple[str, Path, Callable[[], object]]]:
    """name -> (kind, the file it reads, a call that reads it)."""
    from diagnose.classroom import deal as classroom
    from diagnose.classroom import gradescope
    from diagnose.game import progress
    from diagnose.metrics import read_metrics
    from diagnose.tui.drafts import Drafts
    from diagnose.workspace import open_workspace
    from grading import autograder, gradebook
    from grading.attempts import load_attempts
    from grading.diagnoses import read_diagnoses
    from grading.grade import open_key, read_scenario
    from grading.ledger import LEDGER, read_ledger
    from grading.manifest import read_manifest
    from grading.seal import read_key_file
    from scenarios import catalog

    ws = _workspace(tmp_path)
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    course = tmp_path / "source"
    return {
        "scenario.json": ("json", ws / "scenario.json", lambda: read_scenario(ws)),
        "answer-key.sealed": ("json", ws / "answer-key.sealed",
                              lambda: open_key(read_scenario(ws), SECRET)),
        "the workspace's key text": ("json", ws / "answer-key.sealed",
                                     lambda: open_workspace(ws).sealed_text()),
        "metrics.jsonl": ("json", ws / "01" / "metrics.jsonl",
                          lambda: read_metrics(ws / "01" / "metrics.jsonl")),
        "attempts.jsonl": ("json", ws / "attempts.jsonl",
                           lambda: load_attempts(ws, ("01", "02", "03"))),
        "progress.json": ("json", tmp_path / "home" / "progress.json",
                          lambda: progress.load_progress(tmp_path / "home" / "progress.json")),
        "drafts": ("json", ws / ".drafts.json", lambda: Drafts.load(ws)),
        "a what-if cache": ("json", ws / "whatif" / "01" / "x" / "metrics.jsonl",
                            lambda: read_metrics(ws / "whatif" / "01" / "x" / "metrics.jsonl")),
        "the ledger": ("json", bundles / LEDGER, lambda: read_ledger(bundles, SECRET)),
        "the manifest": ("csv", bundles / "manifest.csv", lambda: read_manifest(bundles)),
        "the class's students": ("csv", bundles / "manifest.csv",
                                 lambda: gradebook.dealt_students(bundles)),
        "a roster": ("csv", tmp_path / "roster.csv",
                     lambda: classroom.read_roster(tmp_path / "roster.csv")),
        "deal settings": ("json", bundles / "deal-settings.json",
                          lambda: classroom.check_settings(bundles, {"schema": "x"}, {"a": []})),
        "the deal's language": ("json", bundles / "deal-settings.json",
                                lambda: gradescope.deal_lang(bundles)),
        "autograder settings": ("json", course / autograder.COURSE / autograder.SETTINGS,
                                lambda: autograder.load_course(course)),
        "Gradescope metadata": ("json", course / "submission_metadata.json",
                                lambda: autograder._metadata(course)),
        "a catalog TOML": ("toml", tmp_path / "break.toml",
                           lambda: catalog._read_toml(tmp_path / "break.toml", "break.toml")),
        "a key file": ("json", tmp_path / "course.key",
                       lambda: read_key_file(tmp_path / "course.key")),
        "a diagnoses file": ("md", tmp_path / "ana-diagnoses.md",
                             lambda: read_diagnoses(tmp_path / "ana-diagnoses.md")),
    }


NAMES = ["scenario.json", "answer-key.sealed", "the workspace's key text", "metrics.jsonl",
         "attempts.jsonl", "progress.json", "drafts", "a what-if cache", "the ledger",
         "the manifest", "the class's students", "a roster",
         "deal settings", "the deal's language", "autograder settings", "Gradescope metadata",
         "a catalog TOML", "a key file", "a diagnoses file"]


@pytest.mark.parametrize("reader", NAMES)
def test_every_reader_meets_hostile_bytes_with_one_line(tmp_path, reader):
    kind, path, read = _readers(tmp_path)[reader]
    for name, data in [*_files(kind).items(), ("over the size cap", None)]:
        _put(path, data, huge=data is None)
        if path.suffix == ".key":
            path.chmod(0o600)
        try:
            _one_line(read)
        except AssertionError:
            raise
        except Exception as err:  # noqa: BLE001 - the point: say which input broke which reader
            pytest.fail(f"{reader}, {name}: {type(err).__name__}: {err}"[:300])


def test_the_readers_table_names_every_reader(tmp_path):
    assert sorted(_readers(tmp_path)) == sorted(NAMES)


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("name", [*HOSTILE, "truncated"])
def test_the_cli_says_one_line_for_a_hostile_file(tmp_path, private_home, name):
    data = _files("json")[name]
    ws = _workspace(tmp_path)
    shutil.copyfile(DATA / "home" / "self-study.key", private_home / "self-study.key")
    (private_home / "self-study.key").chmod(0o600)

    (ws / "scenario.json").write_bytes(data)
    for args in (["show", "01", "--dir", str(ws)], ["play", "--dir", str(ws)]):
        result = _run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.startswith("Error: ") and result.output.count("\n") == 1, \
            result.output

    shutil.copyfile(DATA / "scenario" / "scenario.json", ws / "scenario.json")
    (ws / "01" / "metrics.jsonl").write_bytes(data)
    result = _run("show", "01", "--dir", str(ws))
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"Error: {ws / '01' / 'metrics.jsonl'}"), result.output

    diagnoses = tmp_path / "ana-diagnoses.md"
    diagnoses.write_bytes(data)
    result = _run("grade", str(diagnoses), "--check")
    assert result.exit_code in (0, 1) and "Traceback" not in result.output, result.output

    (private_home / "progress.json").write_bytes(data)
    result = CliRunner().invoke(cli, ["progress"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("\n") <= 1 and "Traceback" not in result.stderr
