"""Interpreter implementations of qcomp's `chlo` broadcasting binary ops.

Without `broadcast_dimensions` the lower-rank operand aligns with the trailing
dimensions (NumPy broadcasting); with it, operand dimension i is result dimension
`broadcast_dimensions[i]`.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, impl, register_impls

from qcomp.dialects import chlo
from qcomp.dialects.facts import Elementwise
from qcomp.interpreter import elementwise
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.generated import generated_functions
from qcomp.interpreter.values import element_type, quant_of



def _align(x: np.ndarray, dims, rank: int) -> np.ndarray:
    shape = [1] * rank
    for i, d in enumerate(dims):
        shape[d] = x.shape[i]
    return x.reshape(shape)


def _make(op_type):
    def run(self, interpreter: Interpreter, op, args):
        a, b = args
        if any(quant_of(v.type) is not None for v in (*op.operands, *op.results)):
            raise RunError(f"quantized '{op.name}' is not supported")
        dims = op.broadcast_dimensions
        if dims:
            if a.ndim < b.ndim:
                a = _align(a, dims, b.ndim)
            elif b.ndim < a.ndim:
                b = _align(b, dims, a.ndim)
        a, b = np.broadcast_arrays(a, b)
        return (elementwise.apply(op, [a, b], element_type(op.operands[0].type),
                                  element_type(op.results[0].type)),)
    return impl(op_type)(run)


# every broadcasting op of the dialect that declares its NumPy implementation
_Generated = generated_functions(
    (t, _make(t)) for t in chlo.CHLO.operations if t.has_trait(Elementwise))


@register_impls
class ChloFunctions(_Generated):
    """`chlo.broadcast_*` ops."""
