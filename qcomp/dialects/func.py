"""The `func` dialect as qcomp loads it: xDSL's ops, with `func.return` verified in
MLIR's words (xDSL's own message names neither the operand nor the function):

    'func.return' op has 1 operands, but enclosing function (@f) returns 2
    type of return operand 0 ('tensor<2xf32>') doesn't match function result type
        ('tensor<4xf32>') in function @f
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Dialect
from xdsl.utils.exceptions import VerifyException

from qcomp.ir.errors import UnprefixedVerifyException
from qcomp.ir.printer import type_text


class ReturnOp(func.ReturnOp):
    """`func.return`: its operands are the enclosing function's results. (A subclass of
    xDSL's op sharing its IRDL definition; only the verifier differs.)"""

    def verify_(self) -> None:
        func.ReturnOp.get_irdl_definition().verify(self)
        f = self.parent_op()
        assert isinstance(f, func.FuncOp)
        expected = f.function_type.outputs.data
        got = self.arguments.types
        if len(got) != len(expected):
            raise VerifyException(
                f"has {len(got)} operands, but enclosing function (@{f.sym_name.data}) "
                f"returns {len(expected)}")
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                raise UnprefixedVerifyException(
                    f"type of return operand {i} ('{type_text(g)}') doesn't match function "
                    f"result type ('{type_text(e)}') in function @{f.sym_name.data}")


Func = Dialect(
    "func",
    [ReturnOp if op is func.ReturnOp else op for op in func.Func.operations],
    list(func.Func.attributes),
)
"""xDSL's `func` dialect with qcomp's `func.return`."""
