"""Interpreter implementations of the `shape` and `tensor` ops `lower-quant-ops` emits for
unranked tensors: extents as int64 vectors, `tensor.reshape` as NumPy's reshape."""

from __future__ import annotations

import math

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import shape, tensor
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import element_type, numpy_dtype


@register_impls
class ShapeFunctions(InterpreterFunctions):
    """`shape.shape_of`, `shape.num_elements`, `shape.split_at`, `tensor.from_elements`,
    `tensor.reshape`."""

    @impl(shape.ShapeOfOp)
    def run_shape_of(self, interpreter: Interpreter, op, args):
        return (np.array(np.shape(args[0]), dtype=np.int64),)

    @impl(shape.NumElementsOp)
    def run_num_elements(self, interpreter: Interpreter, op, args):
        return (np.asarray(math.prod(int(d) for d in np.asarray(args[0]).reshape(-1)),
                           dtype=np.int64),)

    @impl(shape.SplitAtOp)
    def run_split_at(self, interpreter: Interpreter, op, args):
        extents = np.asarray(args[0]).reshape(-1)
        at = int(args[1])
        at = at + len(extents) if at < 0 else at
        if not 0 <= at <= len(extents):
            raise RunError(f"{op.name}: index {int(args[1])} out of range for "
                           f"{len(extents)} extents", op)
        return (extents[:at].copy(), extents[at:].copy())

    @impl(tensor.FromElementsOp)
    def run_from_elements(self, interpreter: Interpreter, op, args):
        t = op.result.type
        values = np.array([np.asarray(a).item() for a in args],
                          dtype=numpy_dtype(element_type(t)))
        return (values.reshape(tuple(t.get_shape())),)

    @impl(tensor.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op, args):
        x = np.asarray(args[0])
        extents = tuple(int(d) for d in np.asarray(args[1]).reshape(-1))
        if math.prod(extents) != x.size:
            raise RunError(f"{op.name}: {x.size} elements cannot take the shape "
                           f"{list(extents)}", op)
        return (x.reshape(extents),)
