"""Splat constants held as one element.

MLIR stores `dense<1.0> : tensor<100000x100000xf32>` as one value; xDSL 0.74's
`DenseIntOrFPElementsAttr` stores every element (40 GB here). qcomp keeps xDSL's class
(isinstance checks, property constraints and xDSL's own printer all keep working) but
lets a splat whose full storage would pass `SPLAT_BYTES` hold only its one element's
bytes: `len(attr) == 1` while the type has n > 1 elements. xDSL itself accepts that form
(its verifier only checks rank-0 types; its printer, seeing `shape_is_complete` False,
prints the one element as a splat), and qcomp's printer prints it byte for byte as the
full form. Smaller splats stay materialised, so xDSL code reading `get_values()` on
ordinary constants sees what it always saw.

Code that reads elements uses the functions here instead of `attr.data.data` /
`get_values()`: `splat_value` (the one value), `iter_values` (lazy), `dense_values`
(every element; a held splat's as a `Repeated` sequence, nothing copied); it builds
splats with `splat_attr` / `dense_attr`, and `is_splat_array` tells a pass that a NumPy
value it is about to fold is one value. The interpreter materialises constants in one
place, `qcomp.interpreter.values.dense_to_array`, under the run's --max-memory.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, IntegerType
from xdsl.ir import Attribute

SPLAT_BYTES = 1 << 16
"""A splat whose full storage is larger than this holds one element (smaller splats are
stored element by element, as xDSL stores them)."""


def element_count(attr: DenseIntOrFPElementsAttr) -> int:
    """Elements of the attribute's type (not of its storage)."""
    return math.prod(attr.get_shape())


def is_held_splat(attr: Attribute) -> bool:
    """Whether `attr` is a splat held as one element for a type of n != 1 elements."""
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return False
    size = attr.get_element_type().compile_time_size  # type: ignore[attr-defined]
    return len(attr.data.data) == size and element_count(attr) != 1


def dense_attr(type: Attribute, raw: bytes) -> DenseIntOrFPElementsAttr:
    """xDSL's attribute for `type` with little-endian storage `raw`: every element, or one
    element (then a splat); a splat larger than `SPLAT_BYTES` stays one element, a
    smaller one is expanded as xDSL stores it."""
    n = math.prod(type.get_shape())  # type: ignore[attr-defined]
    size = type.get_element_type().compile_time_size  # type: ignore[attr-defined]
    if len(raw) == size and n != 1 and n * size <= SPLAT_BYTES:
        raw = raw * n
    return DenseIntOrFPElementsAttr(type, BytesAttr(raw))  # type: ignore[arg-type]


def splat_attr(type: Attribute, value: Any) -> DenseIntOrFPElementsAttr:
    """`dense<value> : type` (a Python int, float or (re, im) pair), held as one element
    when large; xDSL's `from_list(type, [value])` without the n-fold copy."""
    element = type.get_element_type()  # type: ignore[attr-defined]
    if isinstance(element, IntegerType):
        value = element.get_normalized_value(value)
    return dense_attr(type, element.pack([value]))  # type: ignore[attr-defined]


def repeats_one_element(raw: bytes, size: int) -> bool:
    """Whether the storage `raw` is two or more copies of one `size`-byte element (MLIR's
    isSplat, by bits); the first two elements are compared before the whole."""
    return raw[:size] == raw[size:2 * size] and raw == raw[:size] * (len(raw) // size)


def one_element_if_splat(attr: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    """`attr` held as one element when every element has the same bits (for printing
    through xDSL, whose splat test compares values)."""
    raw = attr.data.data
    size = attr.get_element_type().compile_time_size  # type: ignore[attr-defined]
    if repeats_one_element(raw, size):
        return DenseIntOrFPElementsAttr(attr.type, BytesAttr(raw[:size]))
    return attr


def splat_value(attr: DenseIntOrFPElementsAttr) -> Any | None:
    """The one value of a held splat (None for any other attribute: full storage is read
    element by element by its users)."""
    if not is_held_splat(attr):
        return None
    return attr.get_values()[0]


def iter_values(attr: DenseIntOrFPElementsAttr) -> Iterator[Any]:
    """Every element value, lazily (a held splat is repeated, not copied)."""
    if is_held_splat(attr):
        return itertools.repeat(attr.get_values()[0], element_count(attr))
    return attr.iter_values()


def is_splat_array(a) -> bool:
    """Whether the NumPy array `a` holds one value n > 1 times (a broadcast view of one
    value is recognised without reading it)."""
    if a.size < 2:
        return False
    if all(stride == 0 for stride in a.strides):
        return True
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype.kind not in "iub":  # compare bits: -0.0 is not 0.0, NaN payloads count
        flat = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((flat == flat[0]).all())


class Repeated(Sequence):
    """`value` n times, stored once (a held splat's elements)."""

    def __init__(self, value: Any, n: int):
        self.value, self.n = value, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Repeated(self.value, len(range(*i.indices(self.n))))
        if not -self.n <= i < self.n:
            raise IndexError("index out of range")
        return self.value

    def __iter__(self) -> Iterator[Any]:
        return itertools.repeat(self.value, self.n)

    def __repr__(self) -> str:
        return f"Repeated({self.value!r}, {self.n})"


def dense_values(attr: DenseIntOrFPElementsAttr) -> Sequence[Any]:
    """Every element value: xDSL's tuple, or for a held splat a `Repeated` sequence (its
    length is the type's element count; nothing is copied)."""
    if is_held_splat(attr):
        return Repeated(attr.get_values()[0], element_count(attr))
    return attr.get_values()


def dense_array(attr: DenseIntOrFPElementsAttr, dtype=np.float64) -> np.ndarray:
    """The elements as a NumPy array of the attribute's shape in `dtype`; a held splat
    is a read-only broadcast view of its one value (nothing is materialised)."""
    shape = tuple(attr.get_type().get_shape())
    if is_held_splat(attr):
        return np.broadcast_to(np.asarray(attr.get_values()[0], dtype=dtype), shape)
    return np.asarray(attr.get_values(), dtype=dtype).reshape(shape)
