"""`metrics.jsonl`: the one file format every view of a run reads (TUI, HTML, show, grader).

A header line, then one JSON object per step, strict JSON: non-finite numbers are written as the
strings "NaN", "Infinity" and "-Infinity" and read back as floats. The header holds only what is
identical across the runs of a scenario, so it tells nothing about which break a run holds.
The schema is documented in docs/files.md. stdlib only: reading a run never imports numpy.

Two minor versions are read. `diagnose.metrics/1` is the game's: every key present. `/1.1` is
a run the user recorded from their own loop (`diagnose.runs.record`): the header lists in
`recorded` which optional step keys the run has, and the game-only header keys may be absent.
Once read, both look alike: an absent key reads as None, and `recorded(header, key)` says
whether a None means "not measured at this step" or "not recorded at all".

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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Final, TypedDict, cast

from scenarios.errors import UserError
from scenarios.escape import escape
from scenarios.files import atomic_write, loads_json, read_small_text

SCHEMA = "diagnose.metrics/1"
SCHEMA_OWN = "diagnose.metrics/1.1"  # a user's own run: optional keys (see the docstring)


class _OwnHeaderKeys(TypedDict, total=False):
    """The keys only an own run's header (/1.1) holds."""

    recorded: list[str]       # the optional step keys it records
    heads_total: int | None   # OWN_HEADER_EXTRA
    neurons_total: int | None
    model: str | None
    data: str | None


class Header(_OwnHeaderKeys):
    """A metrics file's first line, as read. A game run's (/1) holds these keys; an own run's
    (/1.1) holds `recorded` too, and a key it did not write reads as None (so the game-only
    keys are Optional here)."""

    schema: str
    run: str
    steps: int
    params: int | None
    vocab_size: int | None
    lr_max: float
    eval_every: int | None
    entropy_floor: float | None
    ln_vocab: float | None


class StepRecord(TypedDict):
    """One step's line, as read: non-finite numbers as floats; None where a sparse key was not
    measured at this step (`SPARSE`) or an own run does not record the key (`recorded`)."""

    step: int
    lr: float
    train_loss: float
    val_loss: float | None
    grad_norm_preclip: float | None
    grad_norm_postclip: float | None
    act_mean_abs: list[float] | None       # one mean |x| per block, then the final norm's
    spectral_norm: dict[str, float] | None  # matrix name -> its largest singular value
    dead_heads: float | None
    dead_neurons_frac: float | None


# The step keys by name, for code that picks one (a key of `StepRecord`, checked by mypy).
STEP: Final = "step"
LR: Final = "lr"
TRAIN_LOSS: Final = "train_loss"
VAL_LOSS: Final = "val_loss"
GRAD_NORM_PRECLIP: Final = "grad_norm_preclip"
GRAD_NORM_POSTCLIP: Final = "grad_norm_postclip"
ACT_MEAN_ABS: Final = "act_mean_abs"
SPECTRAL_NORM: Final = "spectral_norm"
DEAD_HEADS: Final = "dead_heads"
DEAD_NEURONS_FRAC: Final = "dead_neurons_frac"

_OWN_ONLY = tuple(_OwnHeaderKeys.__annotations__)
HEADER_KEYS = tuple(k for k in Header.__annotations__ if k not in _OWN_ONLY)  # /1's, in order
STEP_KEYS = tuple(StepRecord.__annotations__)  # in the file's order
# /1.1: what every own run has; the rest of HEADER_KEYS, and these, may be absent
OWN_HEADER_REQUIRED = ("schema", "run", "steps", "lr_max", "recorded")
OWN_HEADER_EXTRA = _OWN_ONLY[1:]
STEP_REQUIRED = (STEP, LR, TRAIN_LOSS)
STEP_OPTIONAL = tuple(k for k in STEP_KEYS if k not in STEP_REQUIRED)
MAX_BYTES = 256 << 20  # a default run's file is about 200 KB; refuse what cannot be one
NONFINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
VALUE_WIDTH = 24  # the longest float repr: -2.2250738585072014e-308


class MetricsError(UserError, ValueError):
    """A metrics file is missing, truncated or not of this schema; one line naming the file."""


SPARSE = (VAL_LOSS, DEAD_HEADS, DEAD_NEURONS_FRAC)  # may be None at a step (not measured)
MAX_NAME = 200  # a run's, model's or data's name, a matrix's


def number(value: Any, what: str, error: type[UserError] = MetricsError) -> float:
    """`value` as a float (NaN and ±inf are data); a string, a bool or None is an error."""
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise error(f"{what}: expected a number, got {value!r:.60}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise error(f"{what}: expected a number, got {value!r:.60}") from None


def name(value: Any, what: str, error: type[UserError] = MetricsError) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME or any(
            ord(c) < 32 for c in value):
        raise error(f"{what}: expected a one-line name of at most {MAX_NAME} characters")
    return value


class StepValues:
    """The one check of a /1.1 step's values, for the recorder before it writes and for the
    reader: numbers where numbers go, the activations' length and the matrices' names fixed by
    the first step, a share between 0 and 1. Returns the values as floats."""

    def __init__(self, recorded: Iterable[str], error: type[UserError] = MetricsError) -> None:
        self.recorded = tuple(recorded)
        self.error = error
        self.act_len: int | None = None
        self.matrices: tuple[str, ...] | None = None

    def check(self, values: dict[str, Any], at: str) -> dict[str, Any]:
        error = self.error
        record: dict[str, Any] = {}
        for key in ("lr", "train_loss", *self.recorded):
            value = values.get(key)
            what = f"{at}: {key}"
            if value is None:
                if key in SPARSE:
                    record[key] = None
                    continue
                raise error(f"{what}: missing (this run records it at every step)")
            if key == "act_mean_abs":
                record[key] = self._activations(value, what)
            elif key == "spectral_norm":
                record[key] = self._spectral(value, what)
            else:
                record[key] = number(value, what, error)
                if key in ("lr", "dead_heads") and record[key] < 0:
                    raise error(f"{what}: expected a number of at least 0")
                if key == "dead_neurons_frac" and not 0 <= record[key] <= 1:
                    raise error(f"{what}: expected a share between 0 and 1")
        return record

    def _activations(self, value: Any, what: str) -> list[float]:
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            raise self.error(f"{what}: expected a list: one mean |x| per block, then the "
                             "final norm's")
        numbers = [number(v, f"{what}[{i}]", self.error) for i, v in enumerate(value)]
        if self.act_len is None:
            if len(numbers) < 2:
                raise self.error(f"{what}: expected at least 2 values (a block, the final "
                                 "norm)")
            self.act_len = len(numbers)
        if len(numbers) != self.act_len:
            raise self.error(f"{what}: {len(numbers)} values where step 0 had "
                             f"{self.act_len}")
        return numbers

    def _spectral(self, value: Any, what: str) -> dict[str, float]:
        if not hasattr(value, "items") or not value:
            raise self.error(f"{what}: expected a mapping from matrix name to its largest "
                             "singular value")
        out = {name(k, f"{what}: a matrix name", self.error):
               number(v, f"{what}[{k!r:.60}]", self.error) for k, v in value.items()}
        if self.matrices is None:
            self.matrices = tuple(out)
        if tuple(out) != self.matrices:
            raise self.error(f"{what}: not the matrices step 0 named")
        return out


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


def make_header(run: str, **fields: Any) -> Header:
    header = {"schema": SCHEMA, "run": run, **fields}
    missing = [k for k in HEADER_KEYS if k not in header]
    extra = [k for k in header if k not in HEADER_KEYS]
    if missing or extra:
        raise ValueError(f"metrics header: missing {missing}, unexpected {extra}")
    return cast(Header, {k: header[k] for k in HEADER_KEYS})


class MetricsWriter:
    """Append step records to an open metrics file, header first; flushes every line."""

    def __init__(self, stream: IO[str], header: Mapping[str, Any]) -> None:
        self._stream = stream
        stream.write(dumps_fixed(make_header(**{k: v for k, v in header.items()
                                                 if k != "schema"})) + "\n")
        stream.flush()

    def write(self, record: Mapping[str, Any]) -> None:
        if tuple(record) != STEP_KEYS:
            raise ValueError(f"metrics record: expected keys {STEP_KEYS}, got {tuple(record)}")
        self._stream.write(dumps_fixed(record) + "\n")
        self._stream.flush()


def write_metrics(path: Path, header: Mapping[str, Any],
                  records: Iterable[Mapping[str, Any]]) -> None:
    """Write a whole metrics file atomically (`scenarios.files.atomic_write`)."""
    buffer = io.StringIO(newline="\n")
    writer = MetricsWriter(buffer, header)
    for record in records:
        writer.write(record)
    atomic_write(Path(path), buffer.getvalue(), error=MetricsError)


def recorded(header: Mapping[str, Any], key: str) -> bool:
    """Whether the run records step key `key` at all (a game run records every key)."""
    listed: Sequence[str] = header.get("recorded", STEP_OPTIONAL)
    return key in STEP_REQUIRED or key in listed


# What a header's fields may hold: read from a file anyone can write, each checked once here, so
# no view divides by a zero lr_max or sizes a chart by a `steps` of 10**12.
# The longest run the views draw: `watch` sizes its charts by `steps` (at 8 million it spent
# 600 MB in 20 s and drew nothing; at a million, 145 MB), and a run of a million steps is a
# file of 60-200 MB, within MAX_BYTES.
MAX_RUN_STEPS = 1_000_000
HEADER_COUNTS = {"steps": (1, MAX_RUN_STEPS), "eval_every": (1, MAX_RUN_STEPS),
                 "params": (0, 10**15), "vocab_size": (1, 10**9), "heads_total": (0, 10**9),
                 "neurons_total": (0, 10**12)}
HEADER_TEXTS = ("run", "model", "data")


def _header_field(key: str, value: Any, where: str) -> Any:
    """A header field's value once checked (None stays None); MetricsError saying why."""
    what = f"{where}: header's {key}"
    if key in HEADER_TEXTS:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
            raise MetricsError(f"{what}: expected a name of at most {MAX_NAME} characters")
        return escape(value)  # shown on terminals: a control or bidi character as an escape
    got = number(value, what)
    if key in HEADER_COUNTS:
        low, high = HEADER_COUNTS[key]
        if not (math.isfinite(got) and got == int(got) and low <= got <= high):
            raise MetricsError(f"{what}: expected a whole number from {low} to {high:,}, got "
                               f"{value!r:.60}")
        return int(got)
    if not math.isfinite(got) or got < 0 or (key == "lr_max" and got == 0):
        bound = "above 0" if key == "lr_max" else "of at least 0"
        raise MetricsError(f"{what}: expected a finite number {bound}, got {value!r:.60}")
    return got


HEADER_REQUIRED = ("run", "steps", "lr_max")  # in every header of either schema
HEADER_CHECKED = (*HEADER_TEXTS, *HEADER_COUNTS, "lr_max", "entropy_floor", "ln_vocab")


def _checked_header(header: dict[str, Any], where: str) -> dict[str, Any]:
    """`header` with each field it may hold checked (`_header_field`); an optional field
    absent or null stays None, and a key this version does not know is kept as it is."""
    return {k: _header_field(k, v, where) if k in HEADER_CHECKED and (
                v is not None or k in HEADER_REQUIRED) else v
            for k, v in header.items()}


class MetricsParser:
    """Reads a metrics file line by line: the header first, then step records in order.

    One parser serves a whole file (`read_metrics`) and a file still growing (`diagnose.runs.watch`
    feeds it each complete line as it arrives)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: Header | None = None
        self.records: list[StepRecord] = []
        self._values: StepValues | None = None  # a /1.1 file's value checks

    def feed(self, number: int, line: str) -> None:
        if not line.strip():
            return
        where = f"{self.path}:{number}"
        try:
            obj = loads_json(line)
        except json.JSONDecodeError:
            raise MetricsError(f"{where}: not valid JSON (corrupt or truncated)") from None
        except ValueError as err:
            raise MetricsError(f"{where}: not a metrics record ({err})") from None
        if not isinstance(obj, dict):
            raise MetricsError(f"{where}: expected a JSON object")
        if self.header is None:
            self.header = self._header(obj, where)
            return
        keys = {k for k in STEP_KEYS if recorded(self.header, k)}
        if set(obj) != keys:
            expected = ", ".join(k for k in STEP_KEYS if k in keys)
            raise MetricsError(f"{where}: expected the keys {expected}")
        if obj["step"] != len(self.records):
            raise MetricsError(f"{where}: expected step {len(self.records)}, "
                               f"got {obj['step']!r}")
        record = {k: decode(obj.get(k)) for k in STEP_KEYS}
        if self._values is not None:
            record |= self._values.check(record, where)
        self.records.append(cast(StepRecord, record))

    def _header(self, obj: dict[str, Any], where: str) -> Header:
        schema = obj.get("schema")
        if schema == SCHEMA:
            missing = [k for k in HEADER_KEYS if k not in obj]
            if missing:
                raise MetricsError(f"{where}: header lacks {', '.join(missing)}")
            return cast(Header, _checked_header(decode(obj), where))
        if schema != SCHEMA_OWN:
            raise MetricsError(f"{where}: expected a header with schema {SCHEMA!r} or "
                               f"{SCHEMA_OWN!r}, got {schema!r}")
        missing = [k for k in OWN_HEADER_REQUIRED if k not in obj]
        if missing:
            raise MetricsError(f"{where}: header lacks {', '.join(missing)}")
        listed = obj["recorded"]
        if (not isinstance(listed, list) or not all(isinstance(k, str) for k in listed)
                or not set(listed) <= set(STEP_OPTIONAL)):
            raise MetricsError(f"{where}: header's recorded must list some of "
                               f"{', '.join(STEP_OPTIONAL)}")
        header = _checked_header({k: decode(obj.get(k))
                                  for k in (*HEADER_KEYS, *OWN_HEADER_EXTRA)}, where)
        header["recorded"] = [k for k in STEP_OPTIONAL if k in listed]
        self._values = StepValues(header["recorded"])
        return cast(Header, header)

    def result(self) -> tuple[Header, list[StepRecord]]:
        if self.header is None:
            raise MetricsError(f"{self.path}: empty metrics file")
        return self.header, self.records


def read_metrics(path: Path) -> tuple[Header, list[StepRecord]]:
    """Read a metrics file: (header, step records), non-finite strings back to floats; in a
    /1.1 file an absent key reads as None (`recorded` tells the two Nones apart)."""
    path = Path(path)
    parser = MetricsParser(path)
    text = read_small_text(path, "a metrics file", MAX_BYTES, error=MetricsError,
                           missing="missing metrics file")
    for number, line in enumerate(text.split("\n"), start=1):
        parser.feed(number, line)
    return parser.result()
