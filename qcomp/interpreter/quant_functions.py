"""Interpreter implementations of the `quant` dialect's casts.

`quant.qcast` quantizes and `quant.dcast` dequantizes with the selected semantics'
formulas (the StableHLO spec's by default, like qcomp's `lower-quant-ops`);
`quant.scast` reinterprets storage integers as quantized values and back.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import quant
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.quantized import QuantSemantics
from qcomp.interpreter.values import element_type, int_info, numpy_dtype, quant_of, to_type


@register_impls
class QuantFunctions(InterpreterFunctions):
    """`quant.qcast`, `quant.dcast`, `quant.scast`."""

    def __init__(self, semantics: QuantSemantics | str = "spec"):
        super().__init__()
        self.sem = semantics if isinstance(semantics, QuantSemantics) else QuantSemantics(semantics)

    @impl(quant.QuantizeCastOp)
    def run_qcast(self, interpreter: Interpreter, op, args):
        x = np.asarray(args[0])
        return (self.sem.uniform_quantize(x, op.arg.type, op.res.type),)

    @impl(quant.DequantizeCastOp)
    def run_dcast(self, interpreter: Interpreter, op, args):
        if quant_of(op.arg.type) is None:
            raise RunError(f"{op.name} needs a quantized operand")
        r = self.sem.dequantize(np.asarray(args[0]), op.arg.type)
        return (to_float(r, numpy_dtype(element_type(op.res.type))),)

    @impl(quant.StorageCastOp)
    def run_scast(self, interpreter: Interpreter, op, args):
        target = quant_of(op.res.type) or element_type(op.res.type)
        x = np.asarray(args[0])
        if x.dtype == numpy_dtype(target):  # float storage <-> its float type, same values
            return (x,)
        int_info(target)  # otherwise integer <-> quantized with integer storage
        return (to_type(x, target),)
