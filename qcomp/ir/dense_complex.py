"""`dense<...>` of complex elements with hex parts, read the MLIR way.

MLIR reads each part of `(re, im)` like a float literal: a hex integer is the part's
IEEE bit pattern (`(0x7FF0000000000001, 0x8000000000000000)` is (NaN, -0.0) in
complex<f64>). xDSL reads hex parts as integers; `complex_from_text` reads a literal
with hex parts (None for any other literal, which xDSL reads correctly).
"""

from __future__ import annotations

import math
import re

import numpy as np
from xdsl.dialects.builtin import ComplexType, DenseIntOrFPElementsAttr, Float32Type
from xdsl.ir import Attribute

from qcomp.ir.splat import dense_attr

_PAIR = re.compile(r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)")
_BITS = {4: np.uint32, 8: np.uint64}


def _part(text: str, dtype: np.dtype) -> np.generic:
    t = text.strip()
    negative = t.startswith("-")
    body = t.lstrip("+-")
    if body.lower().startswith("0x"):
        bits = np.array(int(body, 16), dtype=_BITS[dtype.itemsize]).view(dtype)
        return -bits if negative else bits
    return dtype.type(float(t))


def complex_from_text(body: str, type: Attribute) -> DenseIntOrFPElementsAttr | None:
    element = type.get_element_type()  # type: ignore[attr-defined]
    if not isinstance(element, ComplexType) or "0x" not in body or body.lstrip().startswith('"'):
        return None
    dtype = np.dtype(np.float32 if isinstance(element.element_type, Float32Type) else np.float64)
    pairs = _PAIR.findall(body)
    n = math.prod(type.get_shape())  # type: ignore[attr-defined]
    if len(pairs) != n and len(pairs) != 1:
        return None  # let xDSL's reader report the shape mismatch
    parts = np.array([[_part(a, dtype), _part(b, dtype)] for a, b in pairs], dtype).reshape(-1)
    raw = parts.astype(dtype.newbyteorder("<")).tobytes()
    return dense_attr(type, raw)  # one pair: a splat (qcomp.ir.splat)
