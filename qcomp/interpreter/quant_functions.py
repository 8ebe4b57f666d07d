"""Interpreter implementations of the `quant` dialect's casts.

- `quant.qcast`: the spec's quantize, `convert(round_half_to_even(clamp(storage_min,
  x / scale + zero_point, storage_max)))`, per-tensor, per-axis and sub-channel;
- `quant.dcast`: the spec's dequantize, `convert(q - zero_point) * scale`;
- `quant.scast`: the identity on the stored integers (only the type changes).

Values follow `values.py`: quantized tensors are their storage integers. Register with
`interpreter.register_implementations(QuantFunctions())`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    StorageCastOp,
    float_kind,
    quantized_element,
)
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import element_type, numpy_dtype
from qcomp.quant import uniform


@register_impls
class QuantFunctions(InterpreterFunctions):
    """`quant.qcast`, `quant.dcast`, `quant.scast` on NumPy arrays."""

    @impl(StorageCastOp)
    def run_scast(self, interpreter: Interpreter, op: StorageCastOp, args: tuple[Any, ...]):
        return (np.asarray(args[0]).astype(numpy_dtype(element_type(op.res.type))),)

    @impl(QuantizeCastOp)
    def run_qcast(self, interpreter: Interpreter, op: QuantizeCastOp, args: tuple[Any, ...]):
        q = quantized_element(op.res.type)
        if q is None:
            raise RunError("quant.qcast must produce a !quant.uniform type", op)
        x = np.asarray(args[0])
        return (uniform.quantize(x, q.broadcast_scales(x.shape), q.broadcast_zero_points(x.shape),
                                 q.storage_min, q.storage_max, float_kind(q.expressed_type),
                                 numpy_dtype(q)),)

    @impl(DequantizeCastOp)
    def run_dcast(self, interpreter: Interpreter, op: DequantizeCastOp, args: tuple[Any, ...]):
        q = quantized_element(op.arg.type)
        if q is None:
            raise RunError("quant.dcast takes a !quant.uniform type", op)
        s = np.asarray(args[0])
        return (uniform.dequantize(s, q.broadcast_scales(s.shape), q.broadcast_zero_points(s.shape),
                                   float_kind(q.expressed_type)),)
