"""The interpreter's scratch for a contraction beyond its results (the ops' declared
`WorkingMemory`, counted against `--max-memory`): float64 copies of the operands and
the result, and for a convolution its patches. 0 when a shape is dynamic (only the
results' bytes are estimated then)."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation


def _shapes(op: Operation) -> list[tuple[int, ...]] | None:
    """The static shapes of the operands and then the first result; None if any is not."""
    out = []
    for v in (*op.operands, op.results[0]):
        if not isinstance(v.type, TensorType):
            return None
        shape = tuple(v.type.get_shape())
        if any(d < 0 for d in shape):
            return None
        out.append(shape)
    return out


def contraction_scratch(op: Operation) -> int:
    """`8 * (elements of the operands + elements of the result)` (float64 copies)."""
    shapes = _shapes(op)
    if shapes is None:
        return 0
    return 8 * sum(math.prod(s) for s in shapes)


def convolution_scratch(op) -> int:
    """`contraction_scratch`, plus the patches: every output position times every
    kernel tap and input feature, `8 * (|out| / o) * (|kernel| / o) * groups` with `o`
    the output features."""
    shapes = _shapes(op)
    if shapes is None:
        return 0
    *ins, out = shapes
    o = max(out[op.dimension_numbers.output_feature_dimension], 1)
    groups = int(op.feature_group_count)
    return contraction_scratch(op) + 8 * (math.prod(out) // o) * (math.prod(ins[1]) // o) * groups
