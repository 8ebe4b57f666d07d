"""Interpreter implementation of `builtin.unrealized_conversion_cast` between integer tensors.

Partial lowerings bridge type systems with it (e.g. TOSA's i48 widened to StableHLO's
i64): the value is kept and wrapped into the result type, out = wrap(x, width, signed)
— sign-extension when widening a signed (or signless) integer, two's-complement
truncation when narrowing. Any other cast is reported as unsupported.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, UnrealizedConversionCastOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import element_type, is_bool, quant_of, shape_of, to_type


def _plain_int(t) -> IntegerType | None:
    """The element type of `t` when it is a non-quantized, non-boolean integer."""
    if quant_of(t) is not None:
        return None
    e = element_type(t)
    return e if isinstance(e, IntegerType) and not is_bool(e) else None


@register_impls
class BuiltinFunctions(InterpreterFunctions):
    """`builtin.unrealized_conversion_cast` of one integer tensor to an integer tensor
    of the same shape."""

    @impl(UnrealizedConversionCastOp)
    def run_unrealized_conversion_cast(self, interpreter: Interpreter,
                                       op: UnrealizedConversionCastOp, args):
        if len(op.inputs) != 1 or len(op.outputs) != 1:
            raise RunError("only one-to-one unrealized_conversion_cast is supported", op)
        src_t, dst_t = op.inputs[0].type, op.outputs[0].type
        dst_e = _plain_int(dst_t)
        if _plain_int(src_t) is None or dst_e is None or shape_of(src_t) != shape_of(dst_t):
            raise RunError(f"unsupported unrealized_conversion_cast from {src_t} to {dst_t} "
                           "(only integer tensors of one shape)", op)
        return (to_type(np.asarray(args[0]), dst_e),)
