"""Interpreter implementations of the `rowwise` dialect: each op calls its formula in
`qcomp.quant.rowwise*` (one implementation of the math); the kernels' rejections
(out-of-range index, lengths not covering the indices, a random-format header that
disagrees with the op) are run errors naming the op."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import rowwise as rw
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import element_type, numpy_dtype, shape_of
from qcomp.quant import rowwise as q
from qcomp.quant import rowwise_bags as bags
from qcomp.quant import rowwise_rand as rand


def _out_dtype(op) -> np.dtype:
    return numpy_dtype(element_type(op.results[0].type))


def _call(fn, *args, **kwargs) -> np.ndarray:
    try:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    except q.RowwiseError as e:
        raise RunError(str(e)) from e


@register_impls
class RowwiseFunctions(InterpreterFunctions):
    """`rowwise.*` ops on NumPy arrays."""

    @impl(rw.FloatToFused8BitRowwiseQuantizedOp)
    def run_float_to_fused_8bit(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.float_to_fused_8bit, args[0]),)

    @impl(rw.Fused8BitRowwiseQuantizedToFloatOp)
    def run_fused_8bit_to_float(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.fused_8bit_to_float, args[0], _out_dtype(op)),)

    @impl(rw.FloatToFused4BitRowwiseQuantizedOp)
    def run_float_to_fused_4bit(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.float_to_fused_nbit, args[0], 4),)

    @impl(rw.FloatToFused2BitRowwiseQuantizedOp)
    def run_float_to_fused_2bit(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.float_to_fused_nbit, args[0], 2),)

    @impl(rw.Fused4BitRowwiseQuantizedToFloatOp)
    def run_fused_4bit_to_float(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        cols = shape_of(op.results[0].type)[-1]
        return (_call(q.fused_nbit_to_float, args[0], 4, cols, _out_dtype(op)),)

    @impl(rw.Fused2BitRowwiseQuantizedToFloatOp)
    def run_fused_2bit_to_float(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        cols = shape_of(op.results[0].type)[-1]
        return (_call(q.fused_nbit_to_float, args[0], 2, cols, _out_dtype(op)),)

    @impl(rw.FloatToFused4BitFakeRowwiseQuantizedOp)
    def run_float_to_fused_4bit_fake(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.float_to_fused_nbit_fake, args[0], 4),)

    @impl(rw.FloatToFused2BitFakeRowwiseQuantizedOp)
    def run_float_to_fused_2bit_fake(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(q.float_to_fused_nbit_fake, args[0], 2),)

    @impl(rw.FloatToFusedRandRowwiseQuantizedOp)
    def run_float_to_fused_rand(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_call(rand.float_to_fused_rand, args[0], op.bitwidth, op.random, op.seed),)

    @impl(rw.FusedRandRowwiseQuantizedToFloatOp)
    def run_fused_rand_to_float(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        (data,) = args
        cols = shape_of(op.results[0].type)[-1]
        rows = data.reshape(-1, data.shape[-1])
        if rows.size:
            bits, found = _call(rand.read_header, rows)
            if (bits, found) != (op.bitwidth, cols):
                raise RunError(f"the rows' headers say bitwidth {bits} and {found} columns, the op "
                               f"has bitwidth {op.bitwidth} and {cols} columns")
            return (_call(rand.fused_rand_to_float, data, _out_dtype(op)),)
        return (np.zeros(shape_of(op.results[0].type), _out_dtype(op)),)

    @impl(rw.SparseLengthsSumOp)
    def run_sparse_lengths_sum(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        data, indices, lengths = args
        return (self._lengths(op, data, indices, lengths, None),)

    @impl(rw.SparseLengthsMeanOp)
    def run_sparse_lengths_mean(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        data, indices, lengths = args
        return (self._lengths(op, data, indices, lengths, None),)

    @impl(rw.SparseLengthsWeightedSumOp)
    def run_sparse_lengths_weighted_sum(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        data, weights, indices, lengths = args
        return (self._lengths(op, data, indices, lengths, weights),)

    @impl(rw.EmbeddingBagRowwiseOffsetsOp)
    def run_embedding_bag_rowwise_offsets(self, interpreter: Interpreter, op,
                                          args: tuple[Any, ...]):
        data, indices, offsets, *weights = args
        cols = shape_of(op.results[0].type)[-1]
        return (_call(bags.embedding_bag_offsets, data, indices, offsets, op.bits,
                      weights[0] if weights else None, op.include_last_offset, cols),)

    @staticmethod
    def _lengths(op, data, indices, lengths, weights) -> np.ndarray:
        cols = shape_of(op.results[0].type)[-1]
        return _call(bags.sparse_lengths, data, indices, lengths, op.bits, weights, op.MEAN, cols)
