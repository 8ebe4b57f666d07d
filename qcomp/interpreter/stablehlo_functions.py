"""Interpreter implementations of the `stablehlo` ops (NumPy, vectorised).

Quantized operands and results go through `QuantSemantics` (spec or stablehlo
meaning); everything else is plain NumPy on the values described in `values.py`.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from xdsl.dialects.builtin import i64
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import quantization
from qcomp.interpreter import checks, elementwise, kernels, regions
from qcomp.interpreter.bitcast import bitcast
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.plans import static
from qcomp.interpreter.quantized import QuantSemantics
from qcomp.interpreter.values import (
    budget,
    dense_to_array,
    element_type,
    fits_shape,
    numpy_dtype,
    quant_of,
    shape_of,
    to_type,
)

_CONSTANTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Decoded constants by op (read-only arrays), so repeated runs of a module decode once."""


def _any_quant(op) -> bool:
    return any(quant_of(v.type) is not None for v in (*op.operands, *op.results))


def _types(op) -> tuple[bool, Any, Any]:
    """(any value quantized, operand 0's element type, result 0's element type)."""
    return (_any_quant(op), element_type(op.operands[0].type), element_type(op.results[0].type))


def _apply(op):
    """`op`'s declared NumPy implementation as a `QuantSemantics` float function."""
    return lambda vals, elems, res_e: elementwise.apply(op, vals, elems[0], res_e)


def run_elementwise(ft: StablehloFunctions, interpreter: Interpreter, op: Operation,
                    args: tuple[Any, ...]) -> OpImplResult:
    """Any op that declares an `Elementwise` implementation and has no interpreter
    function of its own (the interpreter's fallback): quantized operands and results
    through the semantics' dequantize -> op -> quantize."""
    quantized, e, result_e = static(interpreter, op, _types)
    if not quantized:
        return OpImplResult((elementwise.apply(op, list(args), e, result_e),), None)
    types = [v.type for v in op.operands]
    ot = op.results[0].type
    facts = quantization(op)
    if (len(args) == 2 and facts is not None and facts.same_types_pass_through
            and ft.sem.upstream and quant_of(types[0]) == quant_of(types[1]) == quant_of(ot)):
        q = quant_of(ot)
        a, b = args
        va, vb = ft.sem._view(a, q), ft.sem._view(b, q)  # upstream compares signless
        pick_a = va >= vb if isinstance(op, sh.MaximumOp) else va <= vb
        return OpImplResult((np.where(pick_a, a, b),), None)
    return OpImplResult((ft.sem.qdq(_apply(op), list(args), types, ot),), None)


def _broadcast_shapes(op: sh.BroadcastInDimOp) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the broadcast dimensions, the result's shape)."""
    return tuple(op.broadcast_dimensions), shape_of(op.results[0].type)


def _slices(op: sh.SliceOp) -> tuple[slice, ...]:
    return tuple(slice(a, b, c) for a, b, c in zip(op.start_indices, op.limit_indices, op.strides))


@register_impls
class StablehloFunctions(InterpreterFunctions):
    """`stablehlo` ops; `semantics` picks the meaning of quantized ops."""

    def __init__(self, semantics: QuantSemantics | str = "spec"):
        super().__init__()
        self.sem = semantics if isinstance(semantics, QuantSemantics) else QuantSemantics(semantics)

    # -- constants and conversions ------------------------------------------------------
    @impl(sh.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: sh.ConstantOp, args: tuple[Any, ...]):
        value = op.value
        if not hasattr(value, "get_type") or not hasattr(value, "data"):
            raise RunError(f"unsupported constant value {value}")
        seen, cached = _CONSTANTS.get(op, (None, None))
        if seen is not value:  # a new op, or its value replaced since
            cached = dense_to_array(value, op.results[0].type, budget(interpreter))
            cached.flags.writeable = False
            try:
                _CONSTANTS[op] = (value, cached)
            except TypeError:  # not weak-referenceable: no cache
                pass
        return (cached,)

    @impl(sh.IotaOp)
    def run_iota(self, interpreter: Interpreter, op: sh.IotaOp, args: tuple[Any, ...]):
        t = op.results[0].type
        shape = shape_of(t)
        d = op.iota_dimension
        ramp = np.arange(shape[d], dtype=np.int64).reshape([-1 if i == d else 1 for i in range(len(shape))])
        full = np.broadcast_to(ramp, shape)
        e = element_type(t)
        if quant_of(t) is not None or numpy_dtype(e).kind in "iu":
            return (to_type(full, quant_of(t) or e),)
        return (full.astype(numpy_dtype(e)),)

    @impl(sh.ConvertOp)
    def run_convert(self, interpreter: Interpreter, op: sh.ConvertOp, args: tuple[Any, ...]):
        (x,) = args
        it, ot = op.operands[0].type, op.results[0].type
        if quant_of(it) is not None or quant_of(ot) is not None:
            if quant_of(it) == quant_of(ot):
                return (x,)
            raise RunError("convert of quantized types is not supported (use uniform_quantize)")
        return (elementwise.convert(x, element_type(it), element_type(ot)),)

    @impl(sh.BitcastConvertOp)
    def run_bitcast_convert(self, interpreter: Interpreter, op: sh.BitcastConvertOp, args: tuple[Any, ...]):
        (x,) = args
        it, ot = op.operands[0].type, op.results[0].type
        ie, oe = quant_of(it) or element_type(it), quant_of(ot) or element_type(ot)
        idt, odt = numpy_dtype(ie), numpy_dtype(oe)
        shape = x.shape if _bits(ie) == _bits(oe) else shape_of(ot)
        if idt.kind in "iu" and odt.kind in "iu" and _bits(ie) == _bits(oe):
            return (to_type(x.astype(np.int64) if x.dtype != np.uint64 else x, oe).reshape(shape),)
        if _bits(ie) % 8 or _bits(oe) % 8:  # i1 and sub-byte widths: bit by bit
            return (bitcast(x, _bits(ie), _bits(oe), shape, odt),)
        raw = np.ascontiguousarray(x).astype(idt.newbyteorder("<")).tobytes()
        return (np.frombuffer(raw, dtype=odt.newbyteorder("<")).astype(odt).reshape(shape),)

    @impl(sh.UniformQuantizeOp)
    def run_uniform_quantize(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (self.sem.uniform_quantize(args[0], op.operands[0].type, op.results[0].type),)

    @impl(sh.UniformDequantizeOp)
    def run_uniform_dequantize(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        t = op.operands[0].type
        if quant_of(t) is None:
            raise RunError("uniform_dequantize needs a quantized operand")
        r = self.sem.dequantize(args[0], t)
        return (to_float(r, numpy_dtype(element_type(op.results[0].type))),)

    # -- elementwise with special quantized meaning -------------------------------------------
    @impl(sh.AddOp)
    def run_add(self, interpreter: Interpreter, op: sh.AddOp, args: tuple[Any, ...]):
        a, b = args
        quantized, e, result_e = static(interpreter, op, _types)
        if quantized:
            lt, rt, ot = op.operands[0].type, op.operands[1].type, op.results[0].type
            return (self.sem.add(a, b, lt, rt, ot, _apply(op)),)
        return (elementwise.apply(op, [a, b], e, result_e),)

    @impl(sh.ClampOp)
    def run_clamp(self, interpreter: Interpreter, op: sh.ClampOp, args: tuple[Any, ...]):
        types = [v.type for v in op.operands]

        def fn(vals, elems, res_e):
            lo, x, hi = vals
            e = elems[1]
            m = elementwise.apply(sh.MaximumOp, [np.broadcast_to(x, x.shape),
                                                 np.broadcast_to(lo, x.shape)], e, e)
            return elementwise.apply(sh.MinimumOp, [m, np.broadcast_to(hi, x.shape)], e, res_e)

        if _any_quant(op):
            return (self.sem.qdq(fn, list(args), types, op.results[0].type),)
        return (fn(list(args), [element_type(t) for t in types], element_type(op.results[0].type)),)

    @impl(sh.ReducePrecisionOp)
    def run_reduce_precision(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        e, m = op.exponent_bits.value.data, op.mantissa_bits.value.data

        def fn(vals, elems, res_e):
            return elementwise.reduce_precision(np.asarray(vals[0]), e, m)

        t = op.operands[0].type
        if _any_quant(op):
            return (self.sem.qdq(fn, [args[0]], [t], op.results[0].type),)
        return (fn([args[0]], [element_type(t)], element_type(t)),)

    @impl(sh.SelectOp)
    def run_select(self, interpreter: Interpreter, op: sh.SelectOp, args: tuple[Any, ...]):
        pred, a, b = args
        ta, tb, to = (op.operands[1].type, op.operands[2].type, op.results[0].type)
        if _any_quant(op) and not (quant_of(ta) == quant_of(tb) == quant_of(to)):
            return (self.sem.qdq(lambda v, e, r: np.where(v[0], v[1], v[2]), [pred, a, b],
                                 [op.operands[0].type, ta, tb], to),)
        return (np.where(pred, a, b).astype(a.dtype),)

    @impl(sh.CompareOp)
    def run_compare(self, interpreter: Interpreter, op: sh.CompareOp, args: tuple[Any, ...]):
        a, b = args
        ct = op.compare_type.data.value if op.compare_type is not None else None
        direction = op.comparison_direction

        def fn(vals, elems, res_e):
            return elementwise.compare(direction, vals[0], vals[1], elems[0], ct)

        types = [op.operands[0].type, op.operands[1].type]
        if _any_quant(op):
            return (self.sem.qdq(fn, [a, b], types, op.results[0].type),)
        return (fn([a, b], [element_type(t) for t in types], None),)

    # -- shape ops (quantized values keep their storage integers) -----------------------------
    @impl(sh.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: sh.ReshapeOp, args: tuple[Any, ...]):
        return (np.reshape(args[0], shape_of(op.results[0].type)),)

    @impl(sh.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: sh.TransposeOp, args: tuple[Any, ...]):
        return (np.transpose(args[0], op.permutation),)

    @impl(sh.BroadcastInDimOp)
    def run_broadcast_in_dim(self, interpreter: Interpreter, op: sh.BroadcastInDimOp, args: tuple[Any, ...]):
        (x,) = args
        dims, out = static(interpreter, op, _broadcast_shapes)
        shape = [1] * len(out)
        for i, d in enumerate(dims):
            shape[d] = x.shape[i]
        return (np.broadcast_to(x.reshape(shape), out),)

    @impl(sh.ConcatenateOp)
    def run_concatenate(self, interpreter: Interpreter, op: sh.ConcatenateOp, args: tuple[Any, ...]):
        return (np.concatenate(args, axis=op.dimension),)

    @impl(sh.SliceOp)
    def run_slice(self, interpreter: Interpreter, op: sh.SliceOp, args: tuple[Any, ...]):
        return (args[0][static(interpreter, op, _slices)],)

    @impl(sh.PadOp)
    def run_pad(self, interpreter: Interpreter, op: sh.PadOp, args: tuple[Any, ...]):
        x, v = args
        return (kernels.pad(x, np.asarray(v).reshape(()), op.edge_padding_low,
                            op.edge_padding_high, op.interior_padding),)

    @impl(sh.GatherOp)
    def run_gather(self, interpreter: Interpreter, op: sh.GatherOp, args: tuple[Any, ...]):
        operand, indices = args
        d = op.dimension_numbers
        r = kernels.gather(operand, indices, offset_dims=d.offset_dims,
                           collapsed_slice_dims=d.collapsed_slice_dims,
                           operand_batching_dims=d.operand_batching_dims,
                           start_indices_batching_dims=d.start_indices_batching_dims,
                           start_index_map=d.start_index_map, index_vector_dim=d.index_vector_dim,
                           slice_sizes=op.slice_sizes)
        ot = op.results[0].type
        if quant_of(op.operands[0].type) != quant_of(ot):
            return (self.sem.uniform_quantize(r, op.operands[0].type, ot),)
        return (r.reshape(shape_of(ot)),)

    # -- contractions ---------------------------------------------------------------------------
    @impl(sh.DotGeneralOp)
    def run_dot_general(self, interpreter: Interpreter, op: sh.DotGeneralOp, args: tuple[Any, ...]):
        d = op.dot_dimension_numbers
        return (self._dot(op, args, d.lhs_batching_dimensions, d.rhs_batching_dimensions,
                          d.lhs_contracting_dimensions, d.rhs_contracting_dimensions),)

    @impl(sh.DotOp)
    def run_dot(self, interpreter: Interpreter, op: sh.DotOp, args: tuple[Any, ...]):
        lhs, _ = args
        return (self._dot(op, args, (), (), (lhs.ndim - 1,), (0,)),)

    def _dot(self, op, args, lb, rb, lc, rc):
        lhs, rhs = args
        lt, rt, ot = op.operands[0].type, op.operands[1].type, op.results[0].type
        if _any_quant(op):
            return self.sem.dot_general(lhs, rhs, lt, rt, ot, list(lb), list(rb), list(lc), list(rc))
        return _contract_plain(lambda a, b, acc: kernels.dot_general(a, b, lb, rb, lc, rc, acc),
                               lhs, rhs, ot,
                               float_acc=self.sem.float_accumulation(numpy_dtype(element_type(ot))))

    @impl(sh.ConvolutionOp)
    def run_convolution(self, interpreter: Interpreter, op: sh.ConvolutionOp, args: tuple[Any, ...]):
        lhs, rhs = args
        d = op.dimension_numbers
        conv = dict(
            input_batch=d.input_batch_dimension, input_feature=d.input_feature_dimension,
            input_spatial=d.input_spatial_dimensions, kernel_in=d.kernel_input_feature_dimension,
            kernel_out=d.kernel_output_feature_dimension, kernel_spatial=d.kernel_spatial_dimensions,
            output_batch=d.output_batch_dimension, output_feature=d.output_feature_dimension,
            output_spatial=d.output_spatial_dimensions, strides=op.window_strides,
            padding=op.padding, lhs_dilation=op.lhs_dilation, rhs_dilation=op.rhs_dilation,
            reversal=op.window_reversal, feature_groups=op.feature_group_count,
            batch_groups=op.batch_group_count)
        lt, rt, ot = op.operands[0].type, op.operands[1].type, op.results[0].type
        if _any_quant(op):
            r = self.sem.convolution(lhs, rhs, lt, rt, ot, conv)
        else:
            # the reference interpreter (since upstream #2953) sums in the result type
            r = _contract_plain(lambda a, b, acc: kernels.convolution(a, b, accumulate=acc, **conv),
                                lhs, rhs, ot, float_acc=self.sem.float_accumulation(
                                    numpy_dtype(element_type(ot))))
        if not fits_shape(tuple(r.shape), ot):
            raise RunError(f"convolution produced shape {tuple(r.shape)}, result type is {ot}")
        return (r,)

    # -- reductions and misc ----------------------------------------------------------------------
    @impl(sh.ReduceOp)
    def run_reduce(self, interpreter: Interpreter, op: sh.ReduceOp, args: tuple[Any, ...]):
        n = len(op.inputs)
        inputs, inits = args[:n], args[n:]
        kinds = _reducer_kinds(op)
        if _any_quant(op):
            if self.sem.upstream or kinds is None:
                raise RunError("quantized reduce is only defined under --semantics spec, "
                               "with a body of one binary op per result")
            return self._reduce_qdq(op, inputs, inits, kinds, lambda x, init: (x, tuple(
                op.dimensions)))
        if kinds is None:  # a general body: folded in the reference interpreter's order
            axes = sorted(op.dimensions)
            kept = [d for d in range(np.ndim(inputs[0])) if d not in axes]
            terms = [np.transpose(x, kept + axes).reshape(-1, int(np.prod(
                [np.shape(x)[d] for d in axes], dtype=np.int64))) for x in inputs]
            accs = regions.fold(interpreter, op.body, [
                np.full(terms[0].shape[0], np.asarray(v).reshape(()), np.asarray(v).dtype)
                for v in inits], terms)
            return tuple(np.asarray(a).reshape(shape_of(r.type)) for a, r in zip(accs, op.results))
        out = []
        for x, init, kind, res in zip(inputs, inits, kinds, op.results):
            e = element_type(res.type)
            axes = tuple(op.dimensions)
            if self._sequential(kind, e):
                out.append(sequential_reduce(kind, np.asarray(x), np.asarray(init), axes))
                continue
            out.append(reduce_plain(kind, x, init, axes, e))
        return tuple(out)

    @impl(sh.ReduceWindowOp)
    def run_reduce_window(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        n = len(op.inputs)
        inputs, inits = args[:n], args[n:]
        kinds = _reducer_kinds(op)
        if kinds is None:
            return self._reduce_window_general(interpreter, op, inputs, inits)
        out = []
        for x, init, kind, arg, res in zip(inputs, inits, kinds, op.inputs, op.results):
            q = quant_of(res.type)
            if q is not None and not self.sem.upstream:
                out += self._reduce_qdq(op, [x], [init], [kind], lambda v, i: (
                    kernels.window_view(v, i, op.window_dimensions, op.window_strides,
                                        op.base_dilations, op.window_dilations, op.padding),
                    tuple(range(v.ndim, 2 * v.ndim))), [arg], [res])
                continue
            e = q or element_type(res.type)
            init_v = np.asarray(init).reshape(())
            win = kernels.window_view(np.asarray(x), init_v, op.window_dimensions, op.window_strides,
                                      op.base_dilations, op.window_dilations, op.padding)
            axes = tuple(range(x.ndim, 2 * x.ndim))
            if q is not None:  # upstream: the body runs on the (signless) storage integers
                r = _REDUCERS[kind](self.sem._view(win, q), axes, i64)
                init64 = np.broadcast_to(self.sem._view(init_v, q), r.shape)
                out.append(to_type(elementwise.apply(kind, [r, init64], i64, i64), q))
                continue
            if self._sequential(kind, e):
                out.append(sequential_reduce(kind, win, init_v, axes))
                continue
            r = _REDUCERS[kind](win, axes, e)
            out.append(elementwise.apply(kind, [r, np.broadcast_to(init_v, r.shape)], e, e))
        return tuple(out)

    def _reduce_qdq(self, op, inputs, inits, kinds, terms, operands=None, results=None
                    ) -> tuple:
        """The spec's dequantize -> reduce -> quantize of each (quantized) input:
        `terms(x, init) -> (array, axes reduced)` in the expressed type."""
        operands = list(op.inputs) if operands is None else operands
        results = list(op.results) if results is None else results
        n_init = len(op.inputs)
        out = []
        for x, init, kind, arg, res in zip(inputs, inits, kinds, operands, results):
            init_t = op.operands[n_init + list(op.inputs).index(arg)].type

            def fn(vals, elems, res_e, kind=kind):
                init_v = np.asarray(vals[1]).reshape(())
                win, axes = terms(np.asarray(vals[0]), init_v)
                r = _REDUCERS[kind](win, axes, elems[0])
                return elementwise.apply(kind, [r, np.broadcast_to(init_v, r.shape)],
                                         elems[0], res_e)
            out.append(self.sem.qdq(fn, [x, init], [arg.type, init_t], res.type))
        return tuple(out)

    def _reduce_window_general(self, interpreter, op, inputs, inits) -> tuple:
        """Any body: each window folded from the init value in row-major order."""
        if _any_quant(op):
            raise RunError("quantized reduce_window with a general body is not supported")
        terms = []
        for x, init in zip(inputs, inits):
            init_v = np.asarray(init).reshape(())
            win = kernels.window_view(np.asarray(x), init_v, op.window_dimensions,
                                      op.window_strides, op.base_dilations,
                                      op.window_dilations, op.padding)
            nd = np.ndim(x)
            terms.append(win.reshape(int(np.prod(win.shape[:nd], dtype=np.int64)), -1))
        accs = regions.fold(interpreter, op.body, [
            np.full(terms[0].shape[0], np.asarray(v).reshape(()), np.asarray(v).dtype)
            for v in inits], terms)
        return tuple(np.asarray(a).reshape(shape_of(r.type)) for a, r in zip(accs, op.results))

    def _sequential(self, kind: str, e) -> bool:
        """stablehlo semantics: float sums and products run term by term in the element
        type, starting from the init value (the reference interpreter's order)."""
        return self.sem.upstream and kind in (sh.AddOp, sh.MultiplyOp) and _is_floating(e)

    @impl(sh.BatchNormInferenceOp)
    def run_batch_norm_inference(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        eps = float(op.epsilon.value.data)

        def normalize(x, scale, offset, mean, var):
            shape = [1] * x.ndim
            shape[op.feature_index] = -1
            f = [np.asarray(a, np.float64).reshape(shape) for a in (scale, offset, mean, var)]
            return (x.astype(np.float64) - f[2]) / np.sqrt(f[3] + eps) * f[0] + f[1]

        if _any_quant(op):  # the spec's dequantize_op_quantize
            from qcomp.interpreter.linalg_functions import dq_op_q

            return dq_op_q(interpreter, op, normalize, args)
        t = op.results[0].type
        return (to_float(normalize(*args), numpy_dtype(element_type(t))),)

    @impl(sh.OptimizationBarrierOp)
    def run_optimization_barrier(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return tuple(args)

    @impl(sh.CustomCallOp)
    def run_custom_call(self, interpreter: Interpreter, op: sh.CustomCallOp, args: tuple[Any, ...]):
        if op.call_target_name in checks.custom_call_checks():
            res = checks.judge_check(op, args)
            checks.log_of(interpreter).append(res)
            return tuple(np.array(res.passed) for _ in op.results)
        raise RunError(f"unsupported custom_call target @{op.call_target_name}")

    @impl_terminator(sh.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: sh.ReturnOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()


def _bits(e) -> int:
    from qcomp.interpreter.values import int_info, is_int

    if quant_of(e) is not None or is_int(e):
        return int_info(e)[0]
    return numpy_dtype(e).itemsize * 8


def _contract_plain(fn, lhs, rhs, ot, float_acc="float"):
    """Non-quantized dot/conv: ints accumulate exactly then wrap to the result type (as
    summing in it does); floats as `float_acc` says (float64, or term by term in a dtype)."""
    e = element_type(ot)
    dt = numpy_dtype(e)
    if lhs.dtype == np.bool_:
        return fn(lhs.astype(np.int64), rhs.astype(np.int64), "int") != 0
    if dt.kind in "iu":
        return to_type(fn(lhs, rhs, "int"), e)
    if isinstance(float_acc, str) and dt.kind == "c":
        float_acc = "complex"
    return to_float(fn(lhs, rhs, float_acc), dt)


_REDUCERS = {
    sh.AddOp: lambda x, axes, e: _reduce_with(np.sum, x, axes, e),
    sh.MultiplyOp: lambda x, axes, e: _reduce_with(np.prod, x, axes, e),
    sh.MaximumOp: lambda x, axes, e: np.max(x, axis=axes) if x.size else _identity(x, axes, -np.inf),
    sh.MinimumOp: lambda x, axes, e: np.min(x, axis=axes) if x.size else _identity(x, axes, np.inf),
    sh.AndOp: lambda x, axes, e: np.bitwise_and.reduce(x, axis=axes) if x.size else _identity(x, axes, -1),
    sh.OrOp: lambda x, axes, e: np.bitwise_or.reduce(x, axis=axes) if x.size else _identity(x, axes, 0),
}


def _is_floating(e) -> bool:
    from qcomp.interpreter.values import is_complex, is_float

    return is_float(e) or is_complex(e)


def sequential_reduce(kind: type, x: np.ndarray, init: np.ndarray, axes) -> np.ndarray:
    """acc = init; acc = acc (+ or *) x[i] for the reduced positions i in row-major
    order, each step rounded to x's dtype (`np.add.accumulate` runs exactly that
    recurrence, vectorised over the kept positions)."""
    axes = tuple(sorted(axes))  # input index order, whatever order `dimensions` lists
    kept = [d for d in range(x.ndim) if d not in axes]
    out_shape = [x.shape[d] for d in kept]
    k = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    flat = np.transpose(x, kept + list(axes)).reshape(out_shape + [k])
    start = np.broadcast_to(np.asarray(init, x.dtype).reshape(()), out_shape + [1])
    terms = np.concatenate([start, flat], axis=-1)
    ufunc = np.add if kind is sh.AddOp else np.multiply
    with np.errstate(all="ignore"):
        return ufunc.accumulate(terms, axis=-1, dtype=x.dtype)[..., -1]


def _identity(x, axes, v):
    shape = [s for i, s in enumerate(x.shape) if i not in axes]
    return np.full(shape, v).astype(x.dtype)


def reduce_plain(kind: type, x, init, axes, e, work=None) -> np.ndarray:
    """One result of a non-quantized reduce whose body is the binary op `kind` (not
    run term by term): the reduction over `axes`, then `init` combined by `kind`. A
    float sum widens `x` to float64 into `work` (a C-contiguous float64 array of x's
    shape, reused) when `x` is C-contiguous: the same array `x.astype` makes."""
    if kind is sh.AddOp:
        r = _reduce_with(np.sum, x, axes, e, work)
    else:
        r = _REDUCERS[kind](x, axes, e)
    return elementwise.apply(kind, [r, np.broadcast_to(init, r.shape)], e, e)


def _reduce_with(fn, x, axes, e, work=None):
    dt = numpy_dtype(e)
    if dt.kind in "iu":
        return to_type(fn(x.astype(np.int64 if dt != np.uint64 else np.uint64), axis=axes), e)
    if dt.kind == "b":
        return fn(x, axis=axes) != 0
    if work is not None and dt.kind == "f" and x.flags.c_contiguous and work.shape == x.shape:
        np.copyto(work, x)
        return to_float(fn(work, axis=axes), dt)
    return to_float(fn(x.astype(np.complex128 if dt.kind == "c" else np.float64), axis=axes), dt)




def _reducer_kinds(op) -> list[type] | None:
    """The reduction each result uses, read from a body of single binary ops on block
    args; None for any other body (run by `regions.fold`)."""
    block = op.regions[0].blocks.first
    if block is None:
        raise RunError("reduce has an empty body")
    n = len(op.inputs)
    ops = list(block.ops)
    term = ops[-1]
    kinds = []
    for i, v in enumerate(term.operands):
        owner = v.owner
        kind = type(owner) if type(owner) in _REDUCERS else None
        args = set(owner.operands) if kind else set()
        if kind is None or args != {block.args[i], block.args[i + n]}:
            return None
        kinds.append(kind)
    if len(kinds) != n or len(ops) != n + 1:
        return None
    return kinds
