"""`metrics.jsonl`: the one file format every view of a run reads (TUI, HTML, show, grader).

A header line, then one JSON object per step, strict JSON: non-finite numbers are written as the
strings "NaN", "Infinity" and "-Infinity" and read back as floats. The header holds only what is
identical across the runs of a scenario, so it tells nothing about which break a run holds.
The schema is documented in the README. stdlib only: reading a run never imports numpy.

Files are written fixed-width: every number (and string, and null) is followed by spaces up
to `VALUE_WIDTH` characters, which JSON ignores, so a line's length depends only on its keys,
never on its values, and every run of a scenario has a metrics file of the same size (a file's
size must not tell a NaN run from a healthy one). Reading is `read_small` from
`scenarios.files`, writing its `atomic_write`; tests/test_sizes.py checks the sizes and
pins the first steps' values.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from scenarios.errors import UserError
from scenarios.files import atomic_write, read_small_text

SCHEMA = "diagnose.metrics/1"
HEADER_KEYS = ("schema", "run", "steps", "params", "vocab_size", "lr_max", "eval_every",
               "entropy_floor", "ln_vocab")
STEP_KEYS = ("step", "lr", "train_loss", "val_loss", "grad_norm_preclip", "grad_norm_postclip",
             "act_mean_abs", "spectral_norm", "dead_heads", "dead_neurons_frac")
MAX_BYTES = 256 << 20  # a default run's file is about 200 KB; refuse what cannot be one
NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
VALUE_WIDTH = 24  # the longest float repr: -2.2250738585072014e-308


class MetricsError(UserError, ValueError):
    """A metrics file is missing, truncated or not of this schema; one line naming the file."""


def encode(value: Any) -> Any:
    """Turn non-finite floats (also inside lists and dicts) into their strict-JSON strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of `encode`."""
    if isinstance(value, str) and value in NONFINITE:
        return NONFINITE[value]
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(encode(record), allow_nan=False, separators=(",", ":"))


def dumps_fixed(value: Any) -> str:
    """`value` as strict JSON with every scalar padded to VALUE_WIDTH (see the docstring)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dumps_fixed(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps_fixed(v) for v in value) + "]"
    return json.dumps(encode(value), allow_nan=False).ljust(VALUE_WIDTH)


def make_header(run: str, **fields: Any) -> dict[str, Any]:
    header = {"schema": SCHEMA, "run": run, **fields}
    missing = [k for k in HEADER_KEYS if k not in header]
    extra = [k for k in header if k not in HEADER_KEYS]
    if missing or extra:
        raise ValueError(f"metrics header: missing {missing}, unexpected {extra}")
    return {k: header[k] for k in HEADER_KEYS}


class MetricsWriter:
    """Append step records to an open metrics file, header first; flushes every line."""

    def __init__(self, stream: IO[str], header: dict[str, Any]) -> None:
        self._stream = stream
        stream.write(dumps_fixed(make_header(**{k: v for k, v in header.items()
                                                 if k != "schema"})) + "\n")
        stream.flush()

    def write(self, record: dict[str, Any]) -> None:
        if tuple(record) != STEP_KEYS:
            raise ValueError(f"metrics record: expected keys {STEP_KEYS}, got {tuple(record)}")
        self._stream.write(dumps_fixed(record) + "\n")
        self._stream.flush()


def write_metrics(path: Path, header: dict[str, Any], records: Iterable[dict[str, Any]]) -> None:
    """Write a whole metrics file atomically (`scenarios.files.atomic_write`)."""
    buffer = io.StringIO(newline="\n")
    writer = MetricsWriter(buffer, header)
    for record in records:
        writer.write(record)
    atomic_write(Path(path), buffer.getvalue(), error=MetricsError)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    text = read_small_text(path, "a metrics file", MAX_BYTES, error=MetricsError,
                           missing="missing metrics file")
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line


def read_metrics(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read a metrics file: (header, step records), non-finite strings back to floats."""
    path = Path(path)
    header: dict[str, Any] | None = None
    records: list[dict[str, Any]] = []
    for number, line in _lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            raise MetricsError(f"{path}:{number}: not valid JSON (corrupt or truncated)") from None
        if not isinstance(obj, dict):
            raise MetricsError(f"{path}:{number}: expected a JSON object")
        if header is None:
            if obj.get("schema") != SCHEMA:
                raise MetricsError(f"{path}:{number}: expected a header with schema {SCHEMA!r}, "
                                   f"got {obj.get('schema')!r}")
            missing = [k for k in HEADER_KEYS if k not in obj]
            if missing:
                raise MetricsError(f"{path}:{number}: header lacks {', '.join(missing)}")
            header = decode(obj)
            continue
        if set(obj) != set(STEP_KEYS):
            raise MetricsError(f"{path}:{number}: expected the keys {', '.join(STEP_KEYS)}")
        if obj["step"] != len(records):
            raise MetricsError(f"{path}:{number}: expected step {len(records)}, "
                               f"got {obj['step']!r}")
        records.append(decode(obj))
    if header is None:
        raise MetricsError(f"{path}: empty metrics file")
    return header, records
