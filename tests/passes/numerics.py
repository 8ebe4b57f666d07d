"""Translation validation for the pass tests: run a function before and after a pass
in qcomp's interpreter on the same inputs and compare the results.

Inputs are drawn to hit what quantization gets wrong: exact ties (x / scale + zp =
k + 0.5), values past both ends of the storage range, and the storage range's ends.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.interpreter.runner import make_interpreter
from qcomp.interpreter.values import element_type, numpy_dtype, shape_of


def draw(t: Attribute, rng: np.random.Generator, quantized_like: UniformQuantizedType | None = None
         ) -> np.ndarray:
    """An input for an argument of type `t`. Floats are drawn on the grid of
    `quantized_like` (ties and saturation) when given."""
    shape = shape_of(t)
    e = element_type(t)
    dt = numpy_dtype(e)
    q = quantized_element(t)
    if q is not None:
        lo, hi = q.storage_min, q.storage_max
        vals = rng.integers(lo, hi + 1, size=shape)
        flat = vals.reshape(-1)
        if flat.size >= 2:
            flat[0], flat[-1] = lo, hi
        return vals.astype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, size=shape).astype(dt)
    if quantized_like is not None:
        q = quantized_like
        scales = np.broadcast_to(q.broadcast_scales(shape), shape)
        zps = np.broadcast_to(q.broadcast_zero_points(shape), shape)
        k = rng.integers(q.storage_min - 20, q.storage_max + 21, size=shape)
        frac = rng.choice([0.0, 0.5, -0.5, 0.25, 0.49], size=shape)
        return ((k + frac - zps) * scales).astype(dt)
    return (rng.standard_normal(size=shape) * 4).astype(dt)


def run_function(module: ModuleOp, name: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    interp = make_interpreter(module, "spec")  # registers QuantFunctions too
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    return [np.asarray(r) for r in interp.call_op(f, tuple(inputs))]


def functions_with_bodies(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks]


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-exact for integers, NaN-aware exact equality for floats."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f" or a.dtype.name in ("bfloat16",):
        return bool(np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True))
    return bool(np.array_equal(a, b))
