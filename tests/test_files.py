"""The bounded readers, the atomic writes (keys included), and the files today's version wrote.

- One bounded parser per format (`scenarios.files`): depth is checked before `json`/`tomllib`
  recurse, lone surrogates and oversized CSV fields are refused, and each is one `ValueError`.
- Every write is atomic: a write that fails (a full disk, simulated by patching `os.fsync` or
  the file's `write` to raise ENOSPC) leaves no file, and never a 0-byte key; a 0-byte key an
  older version left is refused with what to do.
- Files as commit 279bf2f writes them (progress.json, drafts, metrics, scenario.json, attempts,
  the ledger, the manifest, deal settings, keys) still open: literal contents, one test each.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from budget import examples
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.cli import cli as main
from scenarios.errors import UserError
from scenarios.files import (
    MAX_DEPTH,
    FormatError,
    atomic_create,
    atomic_write,
    loads_csv,
    loads_json,
    loads_json_lines,
    loads_toml,
    read_json,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "tui" / "data"
SECRET = b"Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE="


# --- the bounded parsers ------------------------------------------------------------------------

@pytest.mark.parametrize("loads, text", [
    (loads_json, "[" * 30_000), (loads_json, '{"a":' * 30_000),
    (loads_json_lines, '{"ok": 1}\n' + "[" * 30_000), (loads_toml, "a = " + "[" * 30_000),
    (loads_toml, "a = " + "{b = " * 30_000),
])
def test_deep_nesting_is_refused_before_the_parser_recurses(loads, text):
    with pytest.raises(FormatError, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads(text)


def test_brackets_inside_strings_and_comments_are_not_nesting():
    assert loads_json('["' + "[" * 100 + '"]') == ["[" * 100]
    assert loads_toml('a = "' + "[" * 100 + '"\n# ' + "{" * 100 + "\nb = '''" + "[" * 50
                      + "'''") == {"a": "[" * 100, "b": "[" * 50}
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH)  # at the limit: read


def test_lone_surrogates_and_bad_csv_are_one_value_error():
    with pytest.raises(FormatError, match="lone surrogate"):
        loads_json('{"code": "\\ud800"}')
    assert loads_json('"\\ud83d\\ude00"') == "\U0001f600"  # a pair is a character
    with pytest.raises(FormatError, match="field larger than field limit"):
        loads_csv('"' + "x" * 200_000 + '"\n')
    with pytest.raises(FormatError, match="line 2: "):
        loads_json_lines('{"a": 1}\n{"a": \n')


@pytest.mark.parametrize("data, reason", [
    (b"[" * 30_000, "nested deeper than 32 levels"),
    ('{"a": "é"}'.encode("latin-1"), "not UTF-8 text"),
    (b'{"a": 1', "Expecting ',' delimiter at line 1"),
    (b"", "Expecting value at line 1"),
])
def test_a_file_that_does_not_parse_is_one_line(tmp_path, data, reason):
    path = tmp_path / "x.json"
    path.write_bytes(data)
    with pytest.raises(UserError) as err:
        read_json(path, "a settings file", 1 << 20)
    assert str(err.value) == f"{path}: not a settings file ({reason})"


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300).map(
    lambda b: b.decode("utf-8", "replace")),
    st.lists(st.sampled_from(["[", "]", "{", "}", '"', "\\", ",", ":", "1", "a", "=", "\n",
                              "#", "'", '"""']), max_size=200).map("".join)))
def test_every_parser_returns_or_raises_value_error(text):
    for loads in (loads_json, loads_json_lines, loads_toml, loads_csv):
        with contextlib.suppress(ValueError):
            loads(text)


# --- atomic writes ---------------------------------------------------------------------------

def _full_disk(monkeypatch, how: str):
    """Make the next write fail as a full disk does."""
    def refuse(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if how == "fsync":
        monkeypatch.setattr(os, "fsync", refuse)
    else:  # the bytes themselves
        real = os.fdopen

        class Full:
            def __init__(self, stream):
                self.stream = stream

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.stream.close()

            def __getattr__(self, name):
                return refuse if name == "write" else getattr(self.stream, name)

        monkeypatch.setattr(os, "fdopen", lambda *a, **k: Full(real(*a, **k)))


@pytest.mark.parametrize("how", ["fsync", "write"])
def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch, how):
    _full_disk(monkeypatch, how)
    with pytest.raises(UserError, match="cannot be written \\(No space left on device\\)"):
        atomic_write(tmp_path / "progress.json", "{}")
    with pytest.raises(UserError, match="cannot be written \\(No space left on device\\)"):
        atomic_create(tmp_path / "k.key", b"x" * 45)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_never_replaced_by_create(tmp_path):
    (tmp_path / "k.key").write_bytes(b"old")
    with pytest.raises(FileExistsError):
        atomic_create(tmp_path / "k.key", b"new")
    assert (tmp_path / "k.key").read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["k.key"]


@pytest.mark.parametrize("how", ["fsync", "write"])
def test_keygen_on_a_full_disk_leaves_no_key(tmp_path, monkeypatch, how):
    _full_disk(monkeypatch, how)
    out = tmp_path / "course.key"
    result = CliRunner().invoke(main, ["keygen", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.output == f"Error: {out}: cannot be written (No space left on device)\n"
    assert list(tmp_path.iterdir()) == []


def test_the_self_study_key_on_a_full_disk_leaves_no_key(monkeypatch):
    from diagnose.home import HomeError, secret_path, self_study_secret

    _full_disk(monkeypatch, "fsync")
    with pytest.raises(HomeError, match="cannot be written"):
        self_study_secret(create=True)
    assert not secret_path().exists()
    monkeypatch.undo()
    assert len(self_study_secret(create=True)) == 44  # the next command makes one


EMPTY_KEY = ("{path}: an empty key file, left by a write cut short (a full disk?); nothing "
             "was ever sealed with it (delete it and make a new key: `diagnose keygen` for an "
             "instructor key; a self-study key is made again on the next command)")


def test_an_empty_key_left_by_an_older_version_says_what_to_do(tmp_path):
    from diagnose.home import HomeError, secret_path, self_study_secret

    path = secret_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    with pytest.raises(HomeError) as err:
        self_study_secret(create=True)
    assert str(err.value) == EMPTY_KEY.format(path=path)
    key = tmp_path / "course.key"
    key.touch(mode=0o600)
    (tmp_path / "bundles").mkdir()
    (tmp_path / "ana-diagnoses.md").write_text("## 01\nbad init\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["grade", str(tmp_path / "ana-diagnoses.md"), "--key",
                                       str(key), "--bundles", str(tmp_path / "bundles")],
                                catch_exceptions=False)
    assert (result.exit_code, result.output) == (1, f"Error: {EMPTY_KEY.format(path=key)}\n")


# --- files today's version wrote (commit 279bf2f) still open --------------------------------

PROGRESS_279BF2F = """{
  "schema": "diagnose.progress/1",
  "levels": {
    "1": {
      "7KQ2-M9XF": {
        "first": [
          3,
          3
        ],
        "best": [
          3,
          3
        ],
        "attempts": 1
      }
    }
  }
}
"""
DRAFTS_279BF2F = """{
 "schema": "diagnose.drafts/1",
 "name": "Ana",
 "answers": {
  "01": {
   "choice": "bad-init",
   "evidence": "loss 230\\n## 02"
  },
  "02": {
   "choice": null,
   "evidence": ""
  }
 }
}
"""
SCENARIO_279BF2F = """{
  "schema": "diagnose.scenario/1",
  "code": "7KQ2-M9XF",
  "engine_version": "0.1.0+engine3",
  "steps": 400,
  "ids": [
    "01",
    "02",
    "03"
  ],
  "key": "self-study",
  "level": 2
}
"""
ATTEMPT_279BF2F = (
    '{"schema": "diagnose.attempt/1", "time": "2026-12-01T10:00:00Z", "sha256": "' + "a" * 64
    + '", "file": "ana-diagnoses.md", "score": 2, "max_score": 3, "after_reveal": false, "by": '
    '"instructor", "answers": {"01": "bad-init", "02": null, "03": "no-warmup"}, "correct": '
    '["01", "03"], "n": 1, "mac": '
    '"688fdeffe5f6804d1fc8038a03388595be92e8d52cb762b09644641188e61e02"}'
    "\n")
LEDGER_279BF2F = """{
 "schema": "diagnose.attempts-ledger/1",
 "students": {
  "ana": {
   "count": 1,
   "digest": "DIGEST",
   "first": {
    "schema": "diagnose.attempt/1",
    "time": "2026-12-01T10:00:00Z",
    "sha256": "SHA",
    "file": "ana-diagnoses.md",
    "score": 2,
    "max_score": 3,
    "after_reveal": false,
    "by": "instructor",
    "answers": {
     "01": "bad-init",
     "02": null,
     "03": "no-warmup"
    },
    "correct": [
     "01",
     "03"
    ]
   }
  }
 },
 "mac": "37a04ade7bd28791a056fe1020ba1d00882c2d4f2d306ec9d451fee26a3f5840"
}
""".replace("DIGEST", "b" * 64).replace("SHA", "a" * 64)
MANIFEST_279BF2F = "student,code,email,level\nana,7KQ2-M9XF,ana@uni.es,2\nbob,ABCD-EFGH,,\n"
SETTINGS_279BF2F = ('{"schema": "diagnose.deal/1", "steps": 60, "lang": "es", "key": '
                    '"0123456789abcdef", "engine_version": "0.1.0+engine3"}\n')


def test_progress_as_written_by_279bf2f_opens(tmp_path):
    from diagnose.game.progress import load_progress

    path = tmp_path / "progress.json"
    path.write_text(PROGRESS_279BF2F, encoding="utf-8")
    progress, warnings = load_progress(path)
    assert warnings == []
    assert progress[1].scenarios["7KQ2-M9XF"]["best"] == [3, 3]


def test_drafts_as_written_by_279bf2f_open(tmp_path):
    from diagnose.tui.drafts import DRAFTS_FILE, Drafts

    (tmp_path / DRAFTS_FILE).write_text(DRAFTS_279BF2F, encoding="utf-8")
    drafts = Drafts.load(tmp_path)
    assert drafts.warning is None  # the name it kept is now kept in the data folder
    assert drafts.answers["01"].evidence == "loss 230\n## 02"


def test_scenario_json_as_written_by_279bf2f_opens(tmp_path):
    from grading.grade import read_scenario

    (tmp_path / "scenario.json").write_text(SCENARIO_279BF2F, encoding="utf-8")
    scenario = read_scenario(tmp_path)
    assert (scenario.code, scenario.ids, scenario.level) == ("7KQ2-M9XF", ("01", "02", "03"), 2)


def test_the_workspace_and_key_an_earlier_version_wrote_open(tmp_path):
    """The TUI's fixture: metrics, scenario.json, sealed key and self-study key of 883ff6f."""
    from diagnose.metrics import read_metrics
    from grading.grade import open_key, read_scenario
    from grading.seal import read_key_file

    key = tmp_path / "self-study.key"
    shutil.copy(FIXTURE / "home" / "self-study.key", key)
    key.chmod(0o600)
    scenario = read_scenario(FIXTURE / "scenario")
    assert sorted(open_key(scenario, read_key_file(key))) == ["01", "02", "03"]
    header, records = read_metrics(FIXTURE / "scenario" / "01" / "metrics.jsonl")
    assert header["steps"] == len(records) == 40


def test_attempts_and_ledger_as_written_by_279bf2f_open(tmp_path):
    from grading.attempts import load_attempts
    from grading.ledger import read_ledger

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "attempts.jsonl").write_text(ATTEMPT_279BF2F, encoding="utf-8")
    attempts = load_attempts(workspace, ("01", "02", "03"), secret=SECRET, code="7KQ2-M9XF")
    assert attempts.problems == () and attempts.records[0].score == 2
    (tmp_path / ".attempts-ledger.json").write_text(LEDGER_279BF2F, encoding="utf-8")
    assert read_ledger(tmp_path, SECRET)["ana"].first.score == 2


def test_manifest_and_settings_as_written_by_279bf2f_open(tmp_path):
    from diagnose.classroom.deal import check_settings
    from grading.manifest import read_manifest

    (tmp_path / "manifest.csv").write_text(MANIFEST_279BF2F, encoding="utf-8")
    assert read_manifest(tmp_path)[0][:4] == ("ana", "7KQ2-M9XF", "ana@uni.es", "2")
    (tmp_path / "deal-settings.json").write_text(SETTINGS_279BF2F, encoding="utf-8")
    wanted = json.loads(SETTINGS_279BF2F)
    assert check_settings(tmp_path, wanted, read_manifest(tmp_path)) is False


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(alphabet="[]{}\"\\ ab,:")),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(alphabet="[{a\"", max_size=3), inner,
                                            max_size=3)),
    max_leaves=12)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@settings(max_examples=examples(150), deadline=None)
@given(JSON_VALUES, st.integers(0, 40))
def test_the_depth_bound_is_exactly_the_nesting(value, wrap):
    """Wrapped `wrap` arrays deep, a value reads as json.loads reads it up to MAX_DEPTH levels
    and is refused beyond, whatever brackets its strings hold."""
    text = "[" * wrap + json.dumps(value) + "]" * wrap
    if _depth(value) + wrap <= MAX_DEPTH:
        assert loads_json(text) == json.loads(text)
    else:
        with pytest.raises(FormatError, match="nested deeper"):
            loads_json(text)


def test_atomic_output_leaves_the_whole_file_or_nothing(tmp_path):
    """A writer that needs a file name (a zip) goes through atomic_output: a failure inside
    the block leaves neither the target nor a temporary file; success leaves the whole file."""
    from scenarios.files import atomic_output

    target = tmp_path / "out.zip"
    with pytest.raises(RuntimeError), atomic_output(target) as partial:
        partial.write_bytes(b"half")
        raise RuntimeError("killed mid-write")
    assert list(tmp_path.iterdir()) == []
    with atomic_output(target) as partial:
        partial.write_bytes(b"whole")
    assert target.read_bytes() == b"whole" and list(tmp_path.iterdir()) == [target]
