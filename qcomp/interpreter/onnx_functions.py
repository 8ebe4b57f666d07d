"""Interpreter implementations of the `onnx` dialect's Constant, NoValue, Custom,
quantize, quantized and reduce ops (the float ops run as their
declared lowerings: onnx_float_functions).

Values are NumPy arrays as qcomp holds them (`qcomp.interpreter.values`); an absent
optional input (`onnx.NoValue`) is None; strings are object arrays of `str`. The formulas
are `qcomp.quant.onnx_quant`, `qcomp.quant.onnx_cast`, `qcomp.quant.onnx_qlinear` and `qcomp.quant.onnx_reduce`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects.onnx import core, quantize, quantized, reduce_ops
from qcomp.dialects.onnx.core import attr, attr_value
from qcomp.dialects.onnx.types import NAME_OF_DTYPE, onnx_name
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import dense_to_array, shape_of
from qcomp.quant.onnx_cast import cast_array, onnx_numpy_dtype
from qcomp.quant.onnx_quant import LayoutError, dequantize_linear, dynamic_quantize_linear, quantize_linear
from qcomp.quant.onnx_reduce import min_max, reduce_min_max, round_half_even


def _out_name(op, i: int = 0) -> str:
    name = onnx_name(op.results[i].type)
    if name is None:
        raise RunError(f"{op.name}: result type {op.results[i].type} is not an ONNX type", op)
    return name


def _checked(op, value: np.ndarray, i: int = 0) -> np.ndarray:
    """`value` as the result's dtype, with the shape the result type requires."""
    want = op.results[i].type
    get = getattr(want, "get_shape", None)
    if get is not None and all(d >= 0 for d in get()) and tuple(get()) != value.shape:
        raise RunError(f"{op.name}: result has shape {value.shape}, its type says "
                       f"{tuple(get())}", op)
    return value


def constant_value(op: core.ConstantOp) -> np.ndarray:
    """The array of an `onnx.Constant` (any of its `value*` attributes)."""
    t = op.output.type
    v = op.properties.get("value")
    if isinstance(v, DenseIntOrFPElementsAttr):
        return dense_to_array(v, t)
    if "value_strings" in op.properties:
        strs = attr_value(op.properties["value_strings"])
        return np.array(strs, dtype=object).reshape(shape_of(t))
    for key in ("value_float", "value_int", "value_floats", "value_ints", "value_string"):
        if key in op.properties:
            a = np.asarray(attr_value(op.properties[key]))
            name = onnx_name(t)
            return a.astype(onnx_numpy_dtype(name)) if name else a
    raise RunError(f"onnx.Constant: unsupported value {v}", op)


@register_impls
class OnnxFunctions(InterpreterFunctions):
    """onnx ops over NumPy arrays."""

    @impl(core.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op, args):
        return (constant_value(op),)

    @impl(core.NoValueOp)
    def run_no_value(self, interpreter: Interpreter, op, args):
        return (None,)

    @impl(core.CustomOp)
    def run_custom(self, interpreter: Interpreter, op, args):
        fn = op.function_name.data if op.function_name else ""
        if core.lowering(op) is not None:  # a contrib op with a StableHLO meaning
            from qcomp.interpreter.onnx_float_functions import run_declared

            return run_declared(self, interpreter, op, args)
        from qcomp.quant.onnx_qlinear import CONTRIB

        run = CONTRIB.get(fn)
        if run is None:
            raise RunError(f"onnx.Custom: no implementation of '{fn}'", op)
        attrs = {k: attr_value(v) for k, v in op.attributes.items()
                 if k not in ("function_name", "domain_name")}
        try:
            outs = run(*args, out=[_out_name(op, i) for i in range(len(op.results))], **attrs)
        except (ValueError, LayoutError) as e:
            raise RunError(f"onnx.Custom '{fn}': {e}", op) from None
        return tuple(_checked(op, np.asarray(o, onnx_numpy_dtype(_out_name(op, i))), i)
                     for i, o in enumerate(outs))

    @impl(quantize.QuantizeLinearOp)
    def run_quantize_linear(self, interpreter: Interpreter, op, args):
        x, s, zp = args
        p = attr(op, "precision") or 0
        try:
            y = quantize_linear(x, s, zp, _out_name(op), axis=attr(op, "axis"),
                                block_size=attr(op, "block_size") or 0,
                                saturate=bool(attr(op, "saturate")),
                                precision=NAME_OF_DTYPE.get(p) if p else None)
        except LayoutError as e:
            raise RunError(f"onnx.QuantizeLinear: {e}", op) from None
        return (_checked(op, y),)

    @impl(quantize.DequantizeLinearOp)
    def run_dequantize_linear(self, interpreter: Interpreter, op, args):
        x, s, zp = args
        try:
            y = dequantize_linear(x, s, zp, _out_name(op), axis=attr(op, "axis"),
                                  block_size=attr(op, "block_size") or 0)
        except LayoutError as e:
            raise RunError(f"onnx.DequantizeLinear: {e}", op) from None
        return (_checked(op, y),)

    @impl(quantize.DynamicQuantizeLinearOp)
    def run_dynamic_quantize_linear(self, interpreter: Interpreter, op, args):
        return dynamic_quantize_linear(args[0])

    @impl(quantize.CastOp)
    def run_cast(self, interpreter: Interpreter, op, args):
        return (cast_array(args[0], _out_name(op), saturate=bool(attr(op, "saturate")),
                           round_mode=attr(op, "round_mode")),)

    @impl(quantize.CastLikeOp)
    def run_cast_like(self, interpreter: Interpreter, op, args):
        return (cast_array(args[0], _out_name(op), saturate=bool(attr(op, "saturate")),
                           round_mode=attr(op, "round_mode")),)

    def _standard(self, op, args):
        from qcomp.quant.onnx_qlinear import STANDARD

        f = core.facts(op)
        kw = dict(f.defaults) if f else {}
        kw.update({k: attr_value(v) for k, v in op.properties.items()})
        try:
            y = STANDARD[op.name.removeprefix("onnx.")](*args, out=_out_name(op), **kw)
        except ValueError as e:
            raise RunError(f"{op.name}: {e}", op) from None
        return (_checked(op, np.asarray(y)),)

    @impl(quantized.MatMulIntegerOp)
    def run_matmul_integer(self, interpreter: Interpreter, op, args):
        return self._standard(op, args)

    @impl(quantized.ConvIntegerOp)
    def run_conv_integer(self, interpreter: Interpreter, op, args):
        return self._standard(op, args)

    @impl(quantized.QLinearMatMulOp)
    def run_qlinear_matmul(self, interpreter: Interpreter, op, args):
        return self._standard(op, args)

    @impl(quantized.QLinearConvOp)
    def run_qlinear_conv(self, interpreter: Interpreter, op, args):
        return self._standard(op, args)

    def _reduce(self, op, args, kind: str):
        data, axes = args
        if axes is None:
            a = attr(op, "axes")
            axes = None if a is None else list(a)
        else:
            axes = [int(v) for v in np.asarray(axes).reshape(-1)]
        try:
            y = reduce_min_max(data, kind, axes, keepdims=attr(op, "keepdims"),
                               noop_with_empty_axes=attr(op, "noop_with_empty_axes"))
        except ValueError as e:
            raise RunError(f"{op.name}: {e}", op) from None
        return (_checked(op, y),)

    @impl(reduce_ops.ReduceMinOp)
    def run_reduce_min(self, interpreter: Interpreter, op, args):
        return self._reduce(op, args, "min")

    @impl(reduce_ops.ReduceMaxOp)
    def run_reduce_max(self, interpreter: Interpreter, op, args):
        return self._reduce(op, args, "max")

    @impl(reduce_ops.MinOp)
    def run_min(self, interpreter: Interpreter, op, args):
        return (_checked(op, min_max(args, "min")),)

    @impl(reduce_ops.MaxOp)
    def run_max(self, interpreter: Interpreter, op, args):
        return (_checked(op, min_max(args, "max")),)

    @impl(reduce_ops.RoundOp)
    def run_round(self, interpreter: Interpreter, op, args):
        return (round_half_even(args[0]),)
