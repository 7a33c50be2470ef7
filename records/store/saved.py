"""Checkpoints read back checked: the state blob of each kind of run (search/runs/) decoded and
checked against the shape that kind writes, here where the store reads it, so a garbage, empty
or truncated checkpoint, or one of the wrong shape, makes the store damaged (StoreDamaged, one
line naming the checkpoint's row) instead of a JSONDecodeError, numpy's pickle refusal or a
compiled kernel reading past an array.

The kinds call the readers from their `restore`: `json_state(blob, SHAPE)` for a JSON state
(the loop hunt, every deal of a deck, grow, true cycles), `array_state(blob, like)` for numpy's
arrays (the longest-game searches), `like` being a fresh state of the same run (its names,
types, shapes). A shape is a function of a value and where it is in the state, giving what is
wrong or None; this module holds their vocabulary, and each kind writes its own shape with it
beside the code that writes the state (search/runs/).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bmn.records.store.values import DEAL, KEY, Row, shown

Shape = Callable[[Any, str], "str | None"]
U64 = 2**64 - 1


class Saved(bytes):
    """A checkpoint's state blob that knows its row, to name it when the state is damaged."""

    row: Row


def saved(blob: bytes, path: Path | str, run_id: int, worker: int) -> Saved:
    state = Saved(blob)
    state.row = Row(path, "checkpoints", f"of run {run_id}, worker {worker}")
    return state


def _row(blob: bytes) -> Row:
    return getattr(blob, "row", None) or Row("(unnamed)", "checkpoints", "?")


def json_state(blob: bytes, shape: Shape) -> Any:
    """A JSON state, checked against `shape`; StoreDamaged naming the row otherwise."""
    row = _row(blob)
    try:
        value = json.loads(bytes(blob))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError among them
        raise row.bad("state", f"holds {shown(blob)} that is not JSON") from None
    problem = shape(value, "the state")
    if problem is not None:
        raise row.bad("state", f"is not this run's checkpoint: {problem}")
    return value


def array_state(
    blob: bytes,
    like: Mapping[str, np.ndarray],
    permuted: tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
    any_length: tuple[str, ...] = (),
) -> dict[str, np.ndarray]:
    """Named arrays in numpy's format (no pickles), each of the type and shape of the same
    name in `like`; those `permuted` hold, row by row, the same values as `like`'s (a deal is
    a shuffle of its deck); those `optional` may be missing (older checkpoints); those of
    `any_length` may hold any number of values but none (a history an older bmn sized)."""
    row = _row(blob)
    try:
        with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as data:
            arrays = {name: data[name].copy() for name in like if name in data.files}
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as err:
        what = f"holds {shown(blob)} that numpy cannot read as arrays ({type(err).__name__})"
        raise row.bad("state", what) from None
    for name, want in like.items():
        problem = _array_problem(name, arrays.get(name), want, name in permuted, name in any_length)
        if problem is not None and not (name in optional and name not in arrays):
            raise row.bad("state", f"is not this run's checkpoint: {problem}")
    return arrays


def _array_problem(
    name: str, got: Any, want: np.ndarray, permuted: bool, any_length: bool
) -> str | None:
    if got is None:
        return f"it lacks the array {name}"
    if any_length and got.dtype == want.dtype and got.ndim == want.ndim and got.size:
        return None
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{name} is {got.dtype}{list(got.shape)}, not {want.dtype}{list(want.shape)}"
    if permuted and not np.array_equal(np.sort(got, axis=-1), np.sort(want, axis=-1)):
        return f"{name} is not a deal of this run's deck"
    return None


# -- the vocabulary of shapes -------------------------------------------------------------


def whole(low: int = 0, high: int = 2**63 - 1) -> Shape:
    def check(value: Any, at: str) -> str | None:
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{at} is {shown(value)}, not a whole number"
        if not low <= value <= high:
            return f"{at} is {value}, out of range ({low} to {high:,})"
        return None

    return check


def flag(value: Any, at: str) -> str | None:
    return None if isinstance(value, bool) else f"{at} is {shown(value)}, not true or false"


def text(pattern: Any = None, what: str = "text") -> Shape:
    def check(value: Any, at: str) -> str | None:
        if not isinstance(value, str) or (pattern is not None and not pattern.fullmatch(value)):
            return f"{at} is {shown(value)}, not {what}"
        return None

    return check


def items(shape: Shape, length: int | None = None) -> Shape:
    """A list of values of `shape` (of `length` values, if given)."""

    def check(value: Any, at: str) -> str | None:
        if not isinstance(value, list):
            return f"{at} is {shown(value)}, not a list"
        if length is not None and len(value) != length:
            return f"{at} holds {len(value)} values, not {length}"
        return next((p for i, v in enumerate(value) if (p := shape(v, f"{at}[{i}]"))), None)

    return check


def row_of(*shapes: Shape) -> Shape:
    """A list of one value of each of `shapes`, in order."""

    def check(value: Any, at: str) -> str | None:
        if not isinstance(value, list) or len(value) != len(shapes):
            return f"{at} is {shown(value)}, not a list of {len(shapes)} values"
        return next((p for i, v in enumerate(value) if (p := shapes[i](v, f"{at}[{i}]"))), None)

    return check


def nullable(shape: Shape) -> Shape:
    return lambda value, at: None if value is None else shape(value, at)


def record(optional: Mapping[str, Shape] | None = None, **fields: Shape) -> Shape:
    """A JSON object with each of `fields` (and any of `optional`), each of its shape."""
    maybe = dict(optional or {})

    def check(value: Any, at: str) -> str | None:
        if not isinstance(value, dict):
            return f"{at} is {shown(value)}, not an object"
        lacking = [name for name in fields if name not in value]
        if lacking:
            return f"{at} lacks {', '.join(lacking)}"
        for name, shape in (fields | {k: v for k, v in maybe.items() if k in value}).items():
            problem = shape(value[name], f"{at}.{name}")
            if problem is not None:
                return problem
        return None

    return check


def exactly(*fields: str) -> Callable[[Shape], Shape]:
    """`shape`, and no field but `fields` (a state unpacked into a class as keywords)."""

    def only(shape: Shape) -> Shape:
        def check(value: Any, at: str) -> str | None:
            extra = sorted(set(value) - set(fields)) if isinstance(value, dict) else []
            return f"{at} has unknown {', '.join(extra)}" if extra else shape(value, at)

        return check

    return only


# -- what the kinds' states share (each kind's own shape is in its module, search/runs/) ---

# numpy's PCG64 state (Generator.bit_generator.state), as the loop hunt and grow keep it.
RNG = record(
    bit_generator=text(re.compile("PCG64"), "PCG64"),
    state=record(state=whole(0, 2**128 - 1), inc=whole(0, 2**128 - 1)),
    has_uint32=whole(0, 1),
    uinteger=whole(0, 2**32 - 1),
)
CYCLE_KEY = text(KEY, "a cycle key ('0:-J/Q-')")
A_DEAL = text(DEAL, "a deal ('-J/Q-')")
HAND = text(re.compile(r"[-JQKA]*|\."), "a hand ('-J-Q')")
