#!/usr/bin/env python3
"""qcomp as a library inside another xDSL-based compiler.

    python3 examples/embed_pass.py

1. Builds a quantized StableHLO function in Python with qcomp's op classes and
   `UniformQuantizedType` constructors (no text parsing):

       func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32>
         qx  = uniform_quantize x    : i8, scale 0.5,  zero point -3
         qy  = uniform_quantize y    : i8, scale 0.25, zero point 2
         sum = add qx, qy            : i8, scale 0.75, zero point 1
         r   = uniform_dequantize sum

2. Runs qcomp's `stablehlo-legalize-quant-to-math` pass, then xDSL's own `cse`, in one
   xDSL `PassPipeline` with a context from `qcomp.registry.make_context()`: no `!quant`
   type is left, only integer and float StableHLO math.
3. Prints both modules with `qcomp.ir.print_module` (MLIR's text).
4. Runs the original and the lowered module with `qcomp.interpreter.run` on the same
   inputs: both give the same numbers.
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, f32, i8
from xdsl.ir import Block, Region
from xdsl.passes import PassPipeline
from xdsl.rewriter import InsertPoint
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from qcomp.ir import print_module
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo import AddOp, UniformDequantizeOp, UniformQuantizeOp
from qcomp.interpreter import run
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context

X = np.array([1.0, -2.25, 3.7, 100.0], dtype=np.float32)
Y = np.array([0.5, 0.3, -1.0, 2.0], dtype=np.float32)


def build_module() -> ModuleOp:
    """`dequantize(quantize(x) + quantize(y))` on tensor<4xf32>, built op by op."""
    qx = UniformQuantizedType.per_tensor(i8, f32, 0.5, -3)
    qy = UniformQuantizedType.per_tensor(i8, f32, 0.25, 2)
    qsum = UniformQuantizedType.per_tensor(i8, f32, 0.75, 1)
    t = TensorType(f32, [4])

    block = Block(arg_types=[t, t])
    x, y = block.args
    b = Builder(InsertPoint.at_end(block))
    a = b.insert(UniformQuantizeOp(x, TensorType(qx, [4])))
    c = b.insert(UniformQuantizeOp(y, TensorType(qy, [4])))
    s = b.insert(AddOp(a.results[0], c.results[0], TensorType(qsum, [4])))
    r = b.insert(UniformDequantizeOp(s.results[0], t))
    b.insert(func.ReturnOp(r.results[0]))
    main = func.FuncOp("main", FunctionType.from_lists([t, t], [t]), Region(block))
    return ModuleOp([main])


def lower(module: ModuleOp) -> ModuleOp:
    """qcomp's pass and xDSL's cse through xDSL's own pipeline machinery (in place)."""
    ctx = make_context()
    pipeline = PassPipeline((LegalizeQuantToMathPass(rescale="float"),
                             CommonSubexpressionElimination()))
    pipeline.apply(ctx, module)
    module.verify()
    return module


def main() -> None:
    module = build_module()
    module.verify()
    print("// built in Python:")
    print(print_module(module), end="")
    (before,) = run(module.clone(), [X, Y])

    lower(module)
    print("// after stablehlo-legalize-quant-to-math,cse:")
    print(print_module(module), end="")
    (after,) = run(module, [X, Y])

    print("// x        =", X.tolist())
    print("// y        =", Y.tolist())
    print("// quantized program:", before.results[0].tolist())
    print("// lowered program:  ", after.results[0].tolist())
    # the sum's stored i8 values: real = (q - 1) * 0.75, exact for these results
    print("// sum storage (i8): ", np.rint(after.results[0] / 0.75 + 1).astype(np.int8).tolist())
    print("// equal:", bool(np.array_equal(before.results[0], after.results[0])))


if __name__ == "__main__":
    main()
