"""Plain tensor and function types (`tensor<2x3xi8>`, `(tensor<i8>) -> tensor<2xi32>`)
read from their text directly: a large program spells a few hundred of them (the parser
reads each spelling once, `QcompParser._read_by_spelling`), and xDSL's general reader
took ~0.2 ms each. Anything unusual (widths past 9999 bits, sizes past 18 digits: MLIR's
limits and diagnostics) is left to xDSL's reader (None)."""

from __future__ import annotations

import re

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

PLAIN_TENSOR = re.compile(r"tensor<(?:[0-9]+x)*(?:[su]?i[0-9]+|f16|bf16|f32|f64|index)>")
"""A ranked static tensor type of a builtin integer or float (no encoding)."""


PLAIN_TENSOR_LIST = rf"\((?:{PLAIN_TENSOR.pattern}(?:, {PLAIN_TENSOR.pattern})*)?\)"
PLAIN_FUNCTION = re.compile(
    rf"{PLAIN_TENSOR_LIST} -> (?:{PLAIN_TENSOR.pattern}|{PLAIN_TENSOR_LIST})")
"""A function type of plain tensor types, spelled as MLIR prints it."""


_PLAIN_ELEMENT = re.compile(r"(si|ui|i)([0-9]{1,4})|f16|bf16|f32|f64|index")


def _plain_element(name: str) -> Attribute | None:
    """The builtin element type `name` of `PLAIN_TENSOR` (None: xDSL's reader, for its
    checks of unusual widths)."""
    m = _PLAIN_ELEMENT.fullmatch(name)
    if m is None:
        return None
    if m.group(1) is None:
        return {"f16": Float16Type, "bf16": BFloat16Type, "f32": Float32Type,
                "f64": Float64Type, "index": IndexType}[name]()
    signedness = {"i": Signedness.SIGNLESS, "si": Signedness.SIGNED,
                  "ui": Signedness.UNSIGNED}[m.group(1)]
    return IntegerType(int(m.group(2)), signedness)


def plain_tensor(spelling: str, elements: dict[str, Attribute | None]) -> Attribute | None:
    """The type a `PLAIN_TENSOR` spelling names, built directly (None: xDSL's reader);
    `elements` holds the element types read so far."""
    inner = spelling[len("tensor<"):-1]
    name = "index" if inner.endswith("index") else inner.rpartition("x")[2]
    dims = inner[:len(inner) - len(name)].split("x")[:-1]
    if name not in elements:
        elements[name] = _plain_element(name)
    element = elements[name]
    if element is None or any(len(d) > 18 for d in dims):  # MLIR's int64_t sizes
        return None
    return TensorType(element, [int(d) for d in dims])


def plain_function(text: str, tensors: dict[str, Attribute],
                   elements: dict[str, Attribute | None]) -> Attribute | None:
    """The function type of a `PLAIN_FUNCTION` spelling, its tensors taken from and added
    to `tensors` (by spelling); None: xDSL's reader."""
    inputs, _, outputs = text.partition(" -> ")
    types = []
    for part in (inputs, outputs):
        listed = []
        for spelling in PLAIN_TENSOR.findall(part):
            t = tensors.get(spelling) or plain_tensor(spelling, elements)
            if t is None:
                return None
            tensors[spelling] = t
            listed.append(t)
        types.append(listed)
    return FunctionType.from_lists(*types)
