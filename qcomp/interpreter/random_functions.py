"""Interpreter functions of `stablehlo.rng_bit_generator` and `stablehlo.rng`.

rng_bit_generator runs XLA's algorithms (`rng_bits`), bit for bit. `rng` is
implementation-defined (upstream's interpreter refuses it): qcomp draws PHILOX bits
from a per-run state starting at [0, 0] and shapes them with XLA's distributions
(uniform in [a, b) from the bits, normal by Box-Muller), so a run is reproducible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.op_attrs import RngDistribution
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.rng_bits import box_muller, rng_bit_generator, uniform
from qcomp.interpreter.values import element_type, numpy_dtype


@register_impls
class RandomFunctions(InterpreterFunctions):
    """rng_bit_generator, rng."""

    @impl(sh.RngBitGeneratorOp)
    def run_rng_bit_generator(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        t = op.output.type
        state, out = rng_bit_generator(op.rng_algorithm.data.value, args[0],
                                       tuple(t.get_shape()), numpy_dtype(element_type(t)))
        return (state.reshape(args[0].shape), out)

    @impl(sh.RngOp)
    def run_rng(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        a, b, shape_arg = args
        shape = tuple(int(v) for v in np.asarray(shape_arg).reshape(-1))
        dtype = numpy_dtype(element_type(op.result.type))
        state = interpreter.get_data(RandomFunctions, "rng_state",
                                     lambda: np.zeros(2, np.uint64))
        wide = np.dtype(np.uint64 if dtype.itemsize == 8 else np.uint32)
        if dtype == np.bool_:
            raise RunError("rng of i1 values is not supported")
        if op.rng_distribution.data == RngDistribution.UNIFORM:
            state, bits = rng_bit_generator("PHILOX", state, shape, wide)
            out = uniform(bits, np.asarray(a).item(), np.asarray(b).item(), dtype)
        else:
            if dtype.kind != "f":
                raise RunError("rng with NORMAL distribution needs a float type")
            n = math.prod(shape)
            state, bits = rng_bit_generator("PHILOX", state, (2, -(-n // 2)), wide)
            u = uniform(bits, 0.0, 1.0, dtype)
            z0, z1 = box_muller(u[0], u[1])
            z = np.stack([z0, z1], axis=1).reshape(-1)[:n].reshape(shape)
            out = (z * dtype.type(np.asarray(b).item()) + dtype.type(np.asarray(a).item()))
        interpreter.set_data(RandomFunctions, "rng_state", state)
        return (np.asarray(out, dtype),)
