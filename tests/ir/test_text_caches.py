"""The parser's and printer's reuse of op lines (`qcomp.ir.parser`, `qcomp.ir.printer`).

A one-line op whose text, without its SSA names, was read before is built from that
first parse; an op printed before with other names reuses its text; the common tokens
come from one regular expression. Each must give what the full path gives: the same
values as operands, the same text, the same diagnostics, the same tokens as xDSL's lexer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from qcomp.ir import QcompParser, print_module
from qcomp.ir.parser import _LinearStringLexer
from qcomp.registry import make_context, parse_module

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
func.func @f(%a: tensor<2xi32>, %b: tensor<2xi32>, %c: tensor<2xf32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  %1 = stablehlo.add %b, %0 : tensor<2xi32>
  %2 = stablehlo.add %1, %1 : tensor<2xi32>
  %3 = stablehlo.add %c, %c : tensor<2xf32>
  %4:2 = "test.two"(%2) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  %5 = stablehlo.add %4#1, %4#0 : tensor<2xi32>
  %6 = stablehlo.add %4#1, %4#0 : tensor<2xi32> // a comment
  %7 = stablehlo.add %6, %5 : tensor<2xi32>
  return %7 : tensor<2xi32>
}
"""


def _parse(text: str) -> tuple[ModuleOp, QcompParser]:
    ctx = make_context()
    ctx.allow_unregistered = True
    parser = QcompParser(ctx, text)
    return parser.parse_module(), parser


def test_reused_lines_take_their_own_operands():
    module, parser = _parse(PROGRAM)
    func = module.body.block.first_op
    a, b, c = func.body.block.args
    ops = list(func.body.block.ops)
    adds = [op for op in ops if op.name == "stablehlo.add"]
    assert [list(op.operands) for op in adds[:4]] == [
        [a, b], [b, adds[0].results[0]], [adds[1].results[0]] * 2, [c, c]]
    two = ops[4]
    assert list(adds[4].operands) == [two.results[1], two.results[0]]
    assert list(adds[5].operands) == [two.results[1], two.results[0]]
    assert list(adds[6].operands) == [adds[5].results[0], adds[4].results[0]]
    # the f32 add has its own result type, not the i32 line's
    assert str(adds[3].results[0].type) == "tensor<2xf32>"
    # `add %, %`-shaped lines of one type were read once; the f32 one is its own
    assert len(parser._line_templates) < len(ops)
    assert print_module(module) == PRINTED


PRINTED = """\
module {
  func.func @f(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>, %arg2: tensor<2xf32>) -> tensor<2xi32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
    %1 = stablehlo.add %arg1, %0 : tensor<2xi32>
    %2 = stablehlo.add %1, %1 : tensor<2xi32>
    %3 = stablehlo.add %arg2, %arg2 : tensor<2xf32>
    %4:2 = "test.two"(%2) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    %5 = stablehlo.add %4#1, %4#0 : tensor<2xi32>
    %6 = stablehlo.add %4#1, %4#0 : tensor<2xi32>
    %7 = stablehlo.add %6, %5 : tensor<2xi32>
    return %7 : tensor<2xi32>
  }
}
"""


def test_a_reused_line_reports_what_a_full_parse_reports():
    text = ("func.func @f(%a: tensor<2xi32>) {\n"
            "  %0 = stablehlo.add %a, %a : tensor<2xi32>\n"
            "  %0 = stablehlo.add %a, %a : tensor<2xi32>\n"
            "  return\n}\n")
    with pytest.raises(ParseError, match=r"<stdin>:3:3[\s\S]*SSA value %0 is already defined"):
        parse_module(text, make_context())


def test_a_use_before_its_definition_is_parsed_in_full():
    text = ("func.func @f(%a: tensor<2xi32>) {\n"
            "  %0 = stablehlo.add %a, %a : tensor<2xi32>\n"
            "  %1 = stablehlo.add %9, %a : tensor<2xi32>\n"
            "  return\n}\n")
    with pytest.raises(ParseError, match=r"use of undefined value|%9"):
        parse_module(text, make_context())


def test_printed_lines_keep_the_input_names_when_asked():
    module = _parse(PROGRAM)[0]
    kept = print_module(module, keep_ssa_names=True)
    assert "%c = stablehlo.add %c, %c : tensor<2xf32>" not in kept
    assert print_module(_parse(kept)[0], keep_ssa_names=True) == kept
    assert print_module(_parse(kept)[0]) == PRINTED


def _tokens(lexer: MLIRLexer) -> list:
    out = []
    while True:
        try:
            token = lexer.lex()
        except ParseError as e:
            return [*out, str(e)]
        out.append((token.kind, token.span.start, token.span.end))
        if token.kind == MLIRTokenKind.EOF:
            return out


class _XdslLexer(_LinearStringLexer):
    lex = MLIRLexer.lex


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "lit").rglob("*.mlir"))[::7],
                         ids=lambda p: p.name)
def test_the_common_token_pattern_lexes_as_xdsl(path: Path):
    text = path.read_text()
    assert _tokens(_LinearStringLexer(Input(text, "f"))) == _tokens(_XdslLexer(Input(text, "f")))


def test_the_common_token_pattern_does_not_backtrack_into_a_comment():
    text = '// CHECK: "op"(%x) : () -> ()\n"op"() : () -> ()\n'
    assert _tokens(_LinearStringLexer(Input(text, "f"))) == _tokens(_XdslLexer(Input(text, "f")))


CONSTANTS = """\
func.func @f() -> tensor<3xi8> {
  %0 = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi8>
  %1 = stablehlo.constant dense<"0x7F8001"> : tensor<3xi8>
  %2 = stablehlo.constant dense<[4, 5, 6]> : tensor<3xi8>
  %3 = stablehlo.constant dense<"0x010203"> : tensor<3xi8>
  %4 = stablehlo.constant dense<7> : tensor<3xi8>
  %5 = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %6 = stablehlo.constant dense<[2.5, -0.0]> : tensor<2xf32>
  return %0 : tensor<3xi8>
}
"""


def test_lines_differing_in_a_dense_body_read_their_own_values():
    """The line template leaves a dense literal's body out: `constant dense<[4, 5, 6]>`
    reuses the first i8 constant's parse, with its own value."""
    module, parser = _parse(CONSTANTS)
    ops = list(module.body.block.first_op.body.block.ops)
    values = [op.properties["value"] for op in ops[:7]]
    assert [list(v.get_values()) for v in values] == [
        [1, -2, 3], [127, -128, 1], [4, 5, 6], [1, 2, 3], [7, 7, 7], [1.5, 2.0], [2.5, -0.0]]
    # one template for the three decimal i8 lines, one for the hex ones, one for f32
    assert len(parser._line_templates) == 3 + 1  # and `return`
    assert print_module(module) == print_module(parse_module(print_module(module)))


def test_a_bad_dense_body_on_a_reused_line_is_reported_as_in_full():
    text = CONSTANTS.replace("dense<[4, 5, 6]>", "dense<[4, 5, 600]>")
    with pytest.raises(ParseError, match=r"<unknown>:4:40\n.*\n *\^\n *integer constant "
                                         r"out of range for type"):
        _parse(text)


SPLATS = """\
func.func @f(%a: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi32>, tensor<2xi64>) {
  %0 = stablehlo.constant dense<0> : tensor<2xi64>
  %1 = stablehlo.constant dense<0> : tensor<2xi32>
  %2 = stablehlo.constant dense<0> : tensor<2xi64>
  %3 = stablehlo.constant dense<1> : tensor<2xi64>
  %4 = stablehlo.add %a, %0 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %5 = stablehlo.add %2, %3 : (tensor<2xi64>,  tensor<2xi64>) -> tensor<2xi64>
  return %4, %1, %5 : tensor<2xi64>, tensor<2xi32>, tensor<2xi64>
}
"""


def test_a_splat_spelled_again_is_one_attribute_and_prints_again():
    """`dense<0> : tensor<2xi64>` read twice is one (immutable) attribute, so the printer
    reuses the first constant's text; another type or value is its own attribute."""
    module, _ = _parse(SPLATS)
    ops = list(module.body.block.first_op.body.block.ops)
    values = [op.properties["value"] for op in ops[:4]]
    assert values[0] is values[2]
    assert values[1] is not values[0] and values[3] is not values[0]
    assert [list(v.get_values()) for v in values] == [[0, 0], [0, 0], [0, 0], [1, 1]]
    assert [str(v.type) for v in values] == ["tensor<2xi64>", "tensor<2xi32>"] + \
        ["tensor<2xi64>"] * 2
    printed = print_module(module)
    assert "%c_1 = stablehlo.constant dense<0> : tensor<2xi64>" in printed
    assert print_module(parse_module(printed)) == printed


def test_function_types_read_once_per_spelling_give_each_line_its_types():
    """Both adds spell a function type (one with two spaces after the comma, read in
    full); each gets the same result type, and the text prints as mlir-opt's."""
    module, parser = _parse(SPLATS)
    adds = [op for op in module.body.block.first_op.body.block.ops
            if op.name == "stablehlo.add"]
    assert adds[0].results[0].type is adds[1].results[0].type
    assert list(parser._function_types) == ["(tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>"]
    assert "%1 = stablehlo.add %c_1, %c_2 : tensor<2xi64>" in print_module(module)


def test_a_reused_op_text_keeps_its_braces():
    """The printer's op texts are `str.format` templates: the braces of an attribute
    dictionary stay as they were."""
    text = """\
func.func @f(%a: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "test.op"(%a) {k = {v = 1 : i64}} : (tensor<2xi64>) -> tensor<2xi64>
  %1 = "test.op"(%0) {k = {v = 1 : i64}} : (tensor<2xi64>) -> tensor<2xi64>
  return %1 : tensor<2xi64>
}
"""
    printed = print_module(_parse(text)[0])
    assert '%1 = "test.op"(%0) {k = {v = 1 : i64}} : (tensor<2xi64>) -> tensor<2xi64>' \
        in printed


@pytest.mark.parametrize("body, hex_body, type", [
    ("[1, -2, 9223372036854775807]", "[0x1, -0x2, 0x7FFFFFFFFFFFFFFF]", "tensor<3xi64>"),
    ("[0, 18446744073709551615, -9223372036854775808]",
     "[0x0, 0xFFFFFFFFFFFFFFFF, -0x8000000000000000]", "tensor<3xi64>"),
    ("[[0, 18446744073709551615]]", "[[0x0, 0xFFFFFFFFFFFFFFFF]]", "tensor<1x2xui64>"),
    ("[3, -4]", "[0x3, -0x4]", "tensor<2xindex>"),
    ("18446744073709551615", "0xFFFFFFFFFFFFFFFF", "tensor<2xi64>"),
    (" -128 ", "-0x80", "tensor<4xi8>"),
])
def test_decimal_64_bit_lists_and_splats_read_as_the_token_path(body, hex_body, type):
    """64-bit decimal lists and integer splats are read with Python's integers; a hex
    token sends the same values through the token path: the same bytes."""
    from qcomp.ir.dense_text import dense_from_text
    t = _parse(f"func.func @f(%a: {type}) {{\n  return\n}}\n")[0] \
        .body.block.first_op.body.block.args[0].type
    assert dense_from_text(body, t).data.data == dense_from_text(hex_body, t).data.data


@pytest.mark.parametrize("body, message", [
    ("[1, 18446744073709551616]", "integer constant out of range for type"),
    ("[1, -1]", "expected unsigned integer elements, but parsed negative value"),
    ("-1", "expected unsigned integer elements, but parsed negative value"),
])
def test_out_of_range_64_bit_literals_keep_their_diagnostics(body, message):
    from qcomp.ir.dense_text import LiteralError, dense_from_text
    t = _parse("func.func @f(%a: tensor<2xui64>) {\n  return\n}\n")[0] \
        .body.block.first_op.body.block.args[0].type
    with pytest.raises(LiteralError, match=message):
        dense_from_text(body, t)


_PLAIN_TYPES = ["tensor<i8>", "tensor<2xindex>", "tensor<0x3xsi4>", "tensor<1x2x3xui16>",
                "tensor<7xf16>", "tensor<7xbf16>", "tensor<4x4xf32>", "tensor<f64>",
                "tensor<3xi1>", "tensor<2xi9999>", "tensor<i0>", "tensor<index>",
                "(tensor<2xi8>, tensor<i64>) -> tensor<2xi32>",
                "(tensor<2xindex>) -> (tensor<i1>, tensor<3x2xui8>)", "() -> ()"]


@pytest.mark.parametrize("text", _PLAIN_TYPES)
def test_plain_types_built_directly_equal_xdsl_reads(text: str):
    from xdsl.parser import Parser

    ctx = make_context()
    expected = Parser(ctx, text).parse_type()
    ours = QcompParser(ctx, text).parse_type()
    assert ours == expected and type(ours) is type(expected)


@pytest.mark.parametrize(("text", "message"), [
    ("tensor<12345678901234567890xi8>", "invalid dimension"),
    ("(tensor<2xi16777216>) -> tensor<2xi8>", "integer bitwidth is limited to 16777215 bits")])
def test_plain_types_past_mlir_limits_keep_their_diagnostics(text: str, message: str):
    with pytest.raises(ParseError, match=message):
        QcompParser(make_context(), text).parse_type()
