"""The shape and type checks every StableHLO verifier uses (`verify.py`, `verify_nn.py`).

Shapes use -1 for a dynamic size; two sizes are compatible when equal or either is
dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant import UniformQuantizedType, element_type
from qcomp.dialects.stablehlo.kinds import type_text


def fail(message: str) -> None:
    raise VerifyException(message)


def shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def dims_compatible(a: int, b: int) -> bool:
    return a == b or a < 0 or b < 0


def shapes_compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


def fmt_dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d < 0 else str(d) for d in dims) + "]"


def compatible_elements(a: Attribute, b: Attribute) -> bool:
    """Upstream's isCompatibleElementTypeForHloTypeInference."""
    a, b = element_type(a), element_type(b)
    qa = a if isinstance(a, UniformQuantizedType) else None
    qb = b if isinstance(b, UniformQuantizedType) else None
    if qa is not None and qb is not None:
        return (qa.storage_type == qb.storage_type and qa.storage_min == qb.storage_min
                and qa.storage_max == qb.storage_max
                and qa.expressed_type == qb.expressed_type
                and qa.is_per_axis == qb.is_per_axis)
    if qa is not None or qb is not None:
        return False
    return a == b


def compatible_types(a: Attribute, b: Attribute) -> bool:
    return shapes_compatible(shape(a), shape(b)) and compatible_elements(a, b)


def check_inferred(inferred: Attribute, actual: Attribute) -> None:
    if not compatible_types(inferred, actual):
        fail(f"inferred type(s) '{type_text(inferred)}' are incompatible with return "
             f"type(s) of operation '{type_text(actual)}'")


def check_inferred_shape(dims: Sequence[int], actual: Attribute) -> None:
    if not shapes_compatible(dims, shape(actual)):
        fail(f"inferred shape '{fmt_dims(dims)}' is incompatible with return type of "
             f"operation '{type_text(actual)}'")
