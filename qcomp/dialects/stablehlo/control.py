"""StableHLO's control flow and structure ops: `while`, `if`, `case`, `map`, `tuple`,
`get_tuple_element`, `after_all`, `composite`, and the `!stablehlo.token` type.

Upstream's text: `while` has its own form (iteration arguments named `%iterArg`),

    %r:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : tensor<i64>, tensor<i64>
    cond { ... stablehlo.return %p : tensor<i1> } do { ... stablehlo.return %x, %y : ... }

`tuple`, `get_tuple_element`, `after_all` and `composite` their declarative formats;
`if`, `case` and `map` print in the generic form.

Quantization (spec): while, if, case and map carry quantized values through their
regions (the types of their results are those of the regions' returns); tuple and
get_tuple_element move values unchanged.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    TupleType,
    i32,
)
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect, Pure, RecursiveMemoryEffect, SymbolUserOpInterface

from qcomp.dialects.facts import NO_QUANTIZATION, UpstreamGeneric, type_only
from qcomp.dialects.stablehlo.format import (
    array_values,
    build_op,
    parse_functional_type,
    print_attr_dict,
    print_functional_type,
    print_operand_list,
    resolve,
)
from qcomp.dialects.stablehlo.kinds import (
    PRED,
    RANKED,
    TENSOR,
    ElementKinds,
    type_text,
    verify_value_kinds,
)
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error
from qcomp.dialects.stablehlo.verify_regions import (
    check_group_kinds,
    types_text,
    verify_branches,
    verify_map,
    verify_while,
)
from qcomp.dialects.stablehlo.verify_shapes import fail, shape
from qcomp.ir.lazy_format import irdl_op_definition

REGION_VALUES = type_only(per_axis=True, fusable=False, upstream_generic=UpstreamGeneric.NEVER)
"""Ops whose quantized values are those their regions or operands carry (upstream's ODS
takes per-axis quantized tensors on while, if, case, tuple and get_tuple_element)."""
MAPPED_VALUES = type_only(fusable=False, upstream_generic=UpstreamGeneric.NEVER)
"""map: per-tensor quantized values only (HLO_Tensor)."""


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """`!stablehlo.token`: orders side effects; carries no value."""

    name = "stablehlo.token"


# ---------------------------------------------------------------------------
# while
# ---------------------------------------------------------------------------
@custom_parser
def _parse_while(cls, parser: Parser):
    pos = parser.pos
    parser.parse_punctuation("(")
    iter_args, operands = [], []
    if parser.parse_optional_punctuation(")") is None:
        while True:
            iter_args.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation("=")
            operands.append(parser.parse_unresolved_operand())
            if parser.parse_optional_punctuation(")") is not None:
                break
            parser.parse_punctuation(",")
    types = []
    if operands:
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    values = resolve(parser, operands, types, pos)
    attrs = parser.parse_optional_attr_dict_with_keyword()
    parser.parse_keyword("cond")
    cond = parser.parse_region([a.resolve(t) for a, t in zip(iter_args, types)])
    parser.parse_keyword("do")
    body = parser.parse_region([a.resolve(t) for a, t in zip(iter_args, types)])
    return build_op(cls, [values], [types], dict(attrs.data) if attrs else {},
                    regions=[cond, body])


def _print_while(op, printer: Printer) -> None:
    printer.print_string("(")
    for i, (arg, v) in enumerate(zip(op.body.block.args, op.operands)):
        if i:
            printer.print_string(", ")
        printer.print_operand(arg)
        printer.print_string(" = ")
        printer.print_operand(v)
    printer.print_string(")")
    if op.operands:
        printer.print_string(" : ")
        printer.print_list([v.type for v in op.operands], printer.print_attribute)
    merged = {**op.attributes, **op.properties}
    if merged:
        printer.print_string(" attributes")
        print_attr_dict(printer, op)
    printer.print_string("\ncond ")
    printer.print_region(op.cond, print_entry_block_args=False)
    printer.print_string(" do ")
    printer.print_region(op.body, print_entry_block_args=False)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """`results = operand; while cond(results): results = body(results)`."""

    name = "stablehlo.while"
    operand = var_operand_def()
    results_ = var_result_def()
    cond = region_def("single_block")
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds(), REGION_VALUES)

    parse = classmethod(_parse_while)
    print = _print_while

    def asm_block_arg_names(self, region) -> list[str]:
        """MLIR's getAsmBlockArgumentNames: `%iterArg`, `%iterArg_0`, ..."""
        return ["iterArg"] * len(region.block.args)

    def verify_(self) -> None:
        verify_while([v.type for v in self.operand], self.cond, self.body)
        rets = [v.type for v in self.operand]
        if [r.type for r in self.results] != rets:
            fail(f"inferred type(s) {types_text(rets)} are incompatible "
                 "with return type(s) of operation "
                 f"{types_text([v.type for v in self.results])}")


# ---------------------------------------------------------------------------
# if, case, map (generic form)
# ---------------------------------------------------------------------------
@irdl_op_definition
class IfOp(IRDLOperation):
    """`true_branch()` if `pred` else `false_branch()`."""

    name = "stablehlo.if"
    pred = operand_def()
    results_ = var_result_def()
    true_branch = region_def("single_block")
    false_branch = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds(((RANKED, PRED),)), REGION_VALUES)

    def verify_(self) -> None:
        if shape(self.pred.type) != ():
            fail(f"operand #0 must be 0D tensor of bool values, but got "
                 f"'{type_text(self.pred.type)}'")
        verify_value_kinds(self)
        verify_branches([self.true_branch, self.false_branch],
                        [r.type for r in self.results], "branch")


@irdl_op_definition
class CaseOp(IRDLOperation):
    """`branches[index]()`, the last branch when `index` is out of range."""

    name = "stablehlo.case"
    index = operand_def()
    results_ = var_result_def()
    branches = var_region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds(), REGION_VALUES)

    def verify_(self) -> None:
        t = self.index.type
        from xdsl.dialects.builtin import IntegerType, TensorType

        if not (isinstance(t, TensorType) and t.get_shape() == ()
                and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 32):
            fail(f"operand #0 must be ranked tensor of 32-bit signless integer values, but got "
                 f"'{type_text(t)}'")
        if not self.branches:
            fail("expect at least one branch")
        verify_branches(list(self.branches), [r.type for r in self.results], "branch")


@irdl_op_definition
class MapOp(IRDLOperation):
    """`computation` applied element by element to `inputs`."""

    name = "stablehlo.map"
    inputs = var_operand_def()
    result = result_def()
    dimensions_attr = prop_def(DenseArrayBase, prop_name="dimensions")
    computation = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds.same(TENSOR, 1), MAPPED_VALUES)

    @property
    def dimensions(self) -> tuple[int, ...]:
        return array_values(self.dimensions_attr) or ()

    def verify_(self) -> None:
        check_group_kinds(self, [(self.inputs, True)], False)
        verify_map([v.type for v in self.inputs], self.dimensions, self.computation,
                   self.result.type)


# ---------------------------------------------------------------------------
# tuple, get_tuple_element
# ---------------------------------------------------------------------------
def _optional_operands(parser: Parser) -> list:
    """`%a, %b, ...` or nothing."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    operands = [first]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


@custom_parser
def _parse_tuple(cls, parser: Parser):
    operands = _optional_operands(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, TupleType):
        op_error(parser, "expected tuple type", pos)
    values = resolve(parser, operands, list(t.types.data), pos)
    return build_op(cls, [values], [t], attrs)


def _print_tuple(op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    print_attr_dict(printer, op)
    printer.print_string(" : ")
    printer.print_attribute(op.result.type)


@irdl_op_definition
class TupleOp(IRDLOperation):
    """`(val[0], val[1], ...)`."""

    name = "stablehlo.tuple"
    val = var_operand_def()
    result = result_def(TupleType)
    traits = traits_def(Pure(), ElementKinds(), REGION_VALUES)

    parse = classmethod(_parse_tuple)
    print = _print_tuple

    def verify_(self) -> None:
        want = TupleType([v.type for v in self.val])
        if list(self.result.type.types.data) != [v.type for v in self.val]:
            fail(f"inferred type(s) '{type_text(want)}' are incompatible with return type(s) of "
                 f"operation '{type_text(self.result.type)}'")


@custom_parser
def _parse_get_tuple_element(cls, parser: Parser):
    operand = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    index = parser.parse_integer()
    parser.parse_punctuation("]")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, 1)
    return build_op(cls, [resolve(parser, [operand], ins)], outs, attrs,
                    {"index": IntegerAttr(index, i32)})


def _print_get_tuple_element(op, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(op.operand)
    printer.print_string(f"[{op.index.value.data}]")
    print_attr_dict(printer, op, ["index"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


@irdl_op_definition
class GetTupleElementOp(IRDLOperation):
    """`operand[index]`."""

    name = "stablehlo.get_tuple_element"
    operand = operand_def(TupleType)
    index = prop_def(IntegerAttr)
    result = result_def()
    traits = traits_def(Pure(), ElementKinds(), REGION_VALUES)

    parse = classmethod(_parse_get_tuple_element)
    print = _print_get_tuple_element

    def verify_(self) -> None:
        i = self.index.value.data
        if i < 0:
            fail("attribute 'index' failed to satisfy constraint: 32-bit signless integer "
                 "attribute whose value is non-negative")
        types = self.operand.type.types.data
        if i >= len(types):
            fail(f"index {i} is out of bounds of operand with size {len(types)}")
        if self.result.type != types[i]:
            fail(f"inferred type(s) '{type_text(types[i])}' are incompatible with return "
                 f"type(s) of operation '{type_text(self.result.type)}'")


# ---------------------------------------------------------------------------
# after_all, composite
# ---------------------------------------------------------------------------
@custom_parser
def _parse_after_all(cls, parser: Parser):
    operands = _optional_operands(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    if isinstance(t, FunctionType):
        ins, (out,) = list(t.inputs.data), list(t.outputs.data)
    else:
        ins, out = [t] * len(operands), t
    return build_op(cls, [resolve(parser, operands, ins, pos)], [out], attrs)


def _print_after_all(op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    print_attr_dict(printer, op)
    printer.print_string(" : ")
    if all(v.type == op.result.type for v in op.operands):
        printer.print_attribute(op.result.type)
    else:
        print_functional_type(printer, op)


@irdl_op_definition
class AfterAllOp(IRDLOperation):
    """A token that depends on `inputs` (no value)."""

    name = "stablehlo.after_all"
    inputs = var_operand_def(TokenType)
    result = result_def(TokenType)
    traits = traits_def(NoMemoryEffect(), ElementKinds(), NO_QUANTIZATION)

    parse = classmethod(_parse_after_all)
    print = _print_after_all


@custom_parser
def _parse_composite(cls, parser: Parser):
    name = parser.parse_str_literal()
    operands = _optional_operands(parser)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, len(operands))
    return build_op(cls, [resolve(parser, operands, ins)], [outs], attrs,
                    {"name": StringAttr(name)}, regions=[[]])


def _print_composite(op, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_string_literal(op.composite_name.data)
    if op.operands:
        printer.print_string(" ")
        print_operand_list(printer, op.operands)
    print_attr_dict(printer, op, ["name"])
    printer.print_string(" : ")
    print_functional_type(printer, op)


class _DecompositionUse(SymbolUserOpInterface):
    def verify(self, op) -> None:
        from xdsl.dialects.func import FuncOp
        from xdsl.traits import SymbolTable

        target = SymbolTable.lookup_symbol(op, op.decomposition)
        if not isinstance(target, FuncOp):
            fail(f"'{op.decomposition.root_reference.data}' does not reference a valid function")
        ft = target.function_type
        ins, outs = [v.type for v in op.operands], [r.type for r in op.results]
        if list(ft.inputs.data) != ins:
            fail(f"has decomposition '{op.decomposition.root_reference.data}' whose input "
                 "types do not match the composite's operand types")
        if list(ft.outputs.data) != outs:
            fail(f"has decomposition '{op.decomposition.root_reference.data}' whose result "
                 "types do not match the composite's result types")


@irdl_op_definition
class CompositeOp(IRDLOperation):
    """A named op whose meaning is its `decomposition` function."""

    name = "stablehlo.composite"
    inputs = var_operand_def()
    results_ = var_result_def()
    composite_name = prop_def(StringAttr, prop_name="name")
    composite_attributes = opt_prop_def(DictionaryAttr)
    decomposition = prop_def(FlatSymbolRefAttr)
    version = opt_prop_def(IntegerAttr)
    composite_regions = var_region_def()
    traits = traits_def(ElementKinds(), _DecompositionUse(), NO_QUANTIZATION)

    parse = classmethod(_parse_composite)
    print = _print_composite


CONTROL_OPS = [WhileOp, IfOp, CaseOp, MapOp, TupleOp, GetTupleElementOp, AfterAllOp,
               CompositeOp]
CONTROL_TYPES = [TokenType]
