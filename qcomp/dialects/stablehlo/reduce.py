"""`stablehlo.reduce` and `stablehlo.reduce_window`, and reduce's custom syntax
(upstream's printReduceOp / parseReduceOp).

Compact form, when the body is one commutative binary stablehlo op on the two
scalar block arguments, in order, whose result is returned:

    %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1]
           : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>

Otherwise the body is printed after `reducer`, block arguments paired as
`(%element, %accumulator)` per input:

    %r = stablehlo.reduce(%x init: %z) across dimensions = [1] : (...) -> ...
     reducer(%a: tensor<f32>, %b: tensor<f32>)  { ... }
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, FunctionType, TensorType
from xdsl.ir import Block, Region
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, RecursiveMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION, XLA_SUM_ORDER, type_only
from qcomp.dialects.stablehlo import verify as check
from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    fmt_list,
    i64_array,
    padding_values,
    parse_i64_list,
    print_attr_dict,
    print_functional_type,
    resolve,
)
from qcomp.dialects.stablehlo.kinds import TENSOR, ElementKinds
from qcomp.dialects.stablehlo.ops import ReturnOp
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error
from qcomp.ir.lazy_format import irdl_op_definition


def _compact_eligible(inner: Any) -> bool:
    """Upstream prints `applies <op>` for a commutative stablehlo op as the body."""
    return inner.dialect_name() == "stablehlo" and inner.has_trait(Commutative)


def _compact_inner(op: Any):
    """The inner op when `op` qualifies for the compact form, else None."""
    if len(op.body.blocks) != 1 or not op.inputs:
        return None
    block = op.body.block
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    inner, ret = ops
    if not _compact_eligible(inner) or len(inner.operands) != 2 or len(inner.results) != 1:
        return None
    expected = inner.operands[0].type
    if any(v.type != expected for v in (*inner.operands, *inner.results)):
        return None
    in_t = op.inputs[0].type
    if not isinstance(in_t, TensorType) or expected != TensorType(in_t.element_type, []):
        return None
    if list(block.args) != list(inner.operands):
        return None
    if ret.name.split(".", 1)[-1] != "return":
        return None
    if list(ret.operands) != list(inner.results):
        return None
    return inner


def print_reduce_body(op: Any, printer: Printer) -> None:
    n = len(op.inputs)
    for i in range(n):
        printer.print_string("(" if i == 0 else ", (")
        printer.print_operand(op.inputs[i])
        printer.print_string(" init: ")
        printer.print_operand(op.init_values[i])
        printer.print_string(")")
    inner = _compact_inner(op)
    if inner is not None:
        printer.print_string(f" applies {inner.name}")
    printer.print_string(f" across dimensions = {fmt_list(array_values(op.dimensions_attr) or ())}")
    print_attr_dict(printer, op, ["dimensions"])
    printer.print_string(" : ")
    print_functional_type(printer, op)
    if inner is None:
        printer.print_string("\n reducer")
        args = op.body.block.args
        for i in range(n):
            printer.print_string("(")
            printer.print_block_argument(args[i])
            printer.print_string(", ")
            printer.print_block_argument(args[i + n])
            printer.print_string(") ")
        printer.print_string(" ")
        printer.print_region(op.body, print_entry_block_args=False)


@custom_parser
def parse_reduce_body(cls, parser: Parser):
    pos = parser.pos
    inputs, inits = [], []

    def pair() -> None:
        parser.parse_punctuation("(")
        inputs.append(parser.parse_unresolved_operand())
        parser.parse_keyword("init")
        parser.parse_punctuation(":")
        inits.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(")")

    pair()
    while parser.parse_optional_punctuation(",") is not None:
        pair()
    operands = inputs + inits
    inner_name = None
    if parser.parse_optional_keyword("applies") is not None:
        name_pos = parser.pos
        inner_name = parser.parse_identifier()
        inner_cls = parser.ctx.get_optional_op(inner_name)
        if inner_cls is None or not _compact_eligible(inner_cls):
            op_error(parser,
                "expected the inner-op to be a commutative binary-op from the stablehlo "
                "dialect, with zero region, producing single result", name_pos)
    parser.parse_keyword("across")
    parser.parse_keyword("dimensions")
    parser.parse_punctuation("=")
    dims = parse_i64_list(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    fn_pos = parser.pos
    fn = parser.parse_type()
    if not isinstance(fn, FunctionType):
        op_error(parser, "expected function type", fn_pos)
    ins, outs = list(fn.inputs.data), list(fn.outputs.data)
    if not ins:
        op_error(parser, "input types missing in reduce-op function type", fn_pos)
    values = resolve(parser, operands, ins)
    n = len(inputs)
    if inner_name is not None:
        in_t = ins[0]
        scalar = TensorType(in_t.element_type if isinstance(in_t, TensorType) else in_t, [])
        block = Block(arg_types=[scalar, scalar])
        inner_cls = parser.ctx.get_optional_op(inner_name)
        ret_cls = ReturnOp
        if inner_cls is None:
            op_error(parser, f"unknown operation {inner_name}", pos)
        inner = inner_cls.build(operands=[block.args[0], block.args[1]], result_types=[scalar])
        block.add_op(inner)
        block.add_op(ret_cls.build(operands=[[inner.results[0]]]))
        region = Region(block)
    else:
        parser.parse_keyword("reducer")
        elems, accs = [], []
        while parser.parse_optional_punctuation("(") is not None:
            elems.append(parser.parse_argument())
            parser.parse_punctuation(",")
            accs.append(parser.parse_argument())
            parser.parse_punctuation(")")
        region = parser.parse_region(elems + accs)
    return build_op(cls, [values[:n], values[n:]], [outs], attrs,
                    {"dimensions": i64_array(dims)}, regions=[region])


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1]`."""

    name = "stablehlo.reduce"
    inputs = var_operand_def()
    init_values = var_operand_def()
    results_ = var_result_def()
    dimensions_attr = prop_def(DenseArrayBase, prop_name="dimensions")
    body = region_def("single_block")
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds.same(TENSOR, 1), NO_QUANTIZATION,
                        XLA_SUM_ORDER)

    parse = classmethod(parse_reduce_body)
    print = print_reduce_body

    @property
    def dimensions(self) -> tuple[int, ...]:
        return array_values(self.dimensions_attr) or ()

    def verify_(self) -> None:
        check.verify_reduce(self)


@irdl_op_definition
class ReduceWindowOp(IRDLOperation):
    """`"stablehlo.reduce_window"(%x, %init) ({...}) <{window_dimensions = ...}>`."""

    name = "stablehlo.reduce_window"
    inputs = var_operand_def()
    init_values = var_operand_def()
    results_ = var_result_def()
    window_dimensions_attr = prop_def(DenseArrayBase, prop_name="window_dimensions")
    window_strides_attr = opt_prop_def(DenseArrayBase, prop_name="window_strides")
    base_dilations_attr = opt_prop_def(DenseArrayBase, prop_name="base_dilations")
    window_dilations_attr = opt_prop_def(DenseArrayBase, prop_name="window_dilations")
    padding_attr = opt_prop_def(DenseIntOrFPElementsAttr, prop_name="padding")
    body = region_def("single_block")
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(
        RecursiveMemoryEffect(), ElementKinds.same(TENSOR, 1),
        type_only(fusable=False), XLA_SUM_ORDER)

    def _rank(self) -> int:
        t = self.inputs[0].type if self.inputs else None
        return len(t.get_shape()) if isinstance(t, TensorType) else 0

    window_dimensions = property(lambda self: array_values(self.window_dimensions_attr) or ())
    window_strides = property(
        lambda self: array_values(self.window_strides_attr) or (1,) * self._rank())
    base_dilations = property(
        lambda self: array_values(self.base_dilations_attr) or (1,) * self._rank())
    window_dilations = property(
        lambda self: array_values(self.window_dilations_attr) or (1,) * self._rank())
    padding = property(
        lambda self: padding_values(self.padding_attr) or ((0, 0),) * self._rank())

    def verify_(self) -> None:
        check.verify_reduce_window(self)
