"""`dense<>` literals read and printed the MLIR way (qcomp.ir).

Expected texts were produced by MLIR itself (jaxlib 0.10.2's `ir.Module.parse` and
`str(module)`) for the same inputs.
"""

from __future__ import annotations

import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import ParseError

from qcomp.ir import QcompParser, parse_module, print_module
from qcomp.ir.dense_text import dense_body_text, mlir_raw_data
from qcomp.registry import make_context

CTX = make_context(allow_unregistered=True)


def _attr(literal: str, type_text: str):
    src = f'"test.op"() {{a = {literal} : {type_text}}} : () -> ()'
    return parse_module(src, CTX).ops.first.attributes["a"]


def _printed(literal: str, type_text: str) -> str:
    src = f'"test.op"() {{a = {literal} : {type_text}}} : () -> ()'
    line = print_module(parse_module(src, CTX)).splitlines()[1].strip()
    return line[len('"test.op"() {a = '):-len("} : () -> ()")]


def _error(literal: str, type_text: str) -> str:
    with pytest.raises(ParseError) as info:
        _attr(literal, type_text)
    return info.value.msg


def _bits(attr, dtype) -> list[int]:
    return np.frombuffer(attr.data.data, dtype=dtype).tolist()


# --- hex float literals are bit patterns -------------------------------------


def test_hex_f32_values_are_bit_patterns():
    a = _attr("dense<[0x7FC00000, 0xFF800000, 0x7F800000, 1.5]>", "tensor<4xf32>")
    vals = a.get_values()
    assert math.isnan(vals[0])
    assert vals[1] == -math.inf and vals[2] == math.inf and vals[3] == 1.5
    assert _bits(a, np.uint32) == [0x7FC00000, 0xFF800000, 0x7F800000, 0x3FC00000]


def test_hex_f16_bf16_f64_bit_patterns():
    assert _bits(_attr("dense<[0x7C00, 0xFC00, 0x3C00]>", "tensor<3xf16>"), np.uint16) == [
        0x7C00, 0xFC00, 0x3C00]
    bf = _attr("dense<[0x7F80, 0xFFC0, 0x3F80]>", "tensor<3xbf16>")
    assert _bits(bf, np.uint16) == [0x7F80, 0xFFC0, 0x3F80]
    v = bf.get_values()
    assert v[0] == math.inf and math.isnan(v[1]) and v[2] == 1.0
    d = _attr("dense<[0x7FF8000000000001, 0x4000000000000000]>", "tensor<2xf64>")
    assert _bits(d, np.uint64) == [0x7FF8000000000001, 0x4000000000000000]


def test_hex_in_integer_dense_is_an_integer():
    assert _attr("dense<0x7FC00000>", "tensor<1xi32>").get_values() == (2143289344,)


def test_hex_float_errors():
    assert _error("dense<0x1FFFF>", "tensor<1xf16>") == (
        "hexadecimal float constant out of range for type")
    assert _error("dense<-0x7C00>", "tensor<1xf16>") == (
        "hexadecimal float literal should not have a leading minus")


def test_nan_and_inf_print_as_hex():
    assert _printed("dense<[0x7FC00000, 0xFF800000, 1.5]>", "tensor<3xf32>") == (
        "dense<[0x7FC00000, 0xFF800000, 1.500000e+00]> : tensor<3xf32>")
    assert _printed("dense<[0x7F80, 0xFFC0, 2.47494364, 0.1]>", "tensor<4xbf16>") == (
        "dense<[0x7F80, 0xFFC0, 2.468750e+00, 1.000980e-01]> : tensor<4xbf16>")


# --- float text as MLIR prints it --------------------------------------------


def test_float_printing_matches_mlir():
    lit = "dense<[0.1, 2.47494364, 3.0e-45, 1.0e-40, 65504.0, 123456789.0]>"
    assert _printed(lit, "tensor<6xf32>") == (
        "dense<[1.000000e-01, 2.47494364, 2.802600e-45, 9.999940e-41, 6.550400e+04, "
        "0x4CEB79A3]> : tensor<6xf32>")
    assert _printed(lit, "tensor<6xf64>") == (
        "dense<[1.000000e-01, 2.4749436399999998, 3.000000e-45, 9.9999999999999992E-41, "
        "6.550400e+04, 0x419D6F3454000000]> : tensor<6xf64>")
    assert _printed("dense<[0.1, 6.0e-8, 65504.0, 1.0e-3]>", "tensor<4xf16>") == (
        "dense<[9.997550e-02, 5.960460e-08, 6.550400e+04, 1.000400e-03]> : tensor<4xf16>")
    assert _printed("dense<-0.0>", "tensor<2xf32>") == "dense<-0.000000e+00> : tensor<2xf32>"


def test_scalar_float_attr_prints_like_mlir():
    assert _printed("2.47494364", "f32") == "2.47494364 : f32"
    assert _printed("0x7FC00000", "f32") == "0x7FC00000 : f32"


# --- ranges and element kinds ------------------------------------------------


@pytest.mark.parametrize("literal,type_text,message", [
    ("dense<1.0e+39>", "tensor<1xf32>", "float literal '1.0e+39' out of range for type f32"),
    ("dense<[1.0, -1.0e+39]>", "tensor<2xf32>", "float literal '-1.0e+39' out of range for type f32"),
    ("dense<70000.0>", "tensor<1xf16>", "float literal '70000.0' out of range for type f16"),
    ("dense<1.0e+309>", "tensor<1xf64>", "float literal '1.0e+309' out of range for type f64"),
    ("dense<16>", "tensor<1xi4>", "integer constant out of range for type"),
    ("dense<-9>", "tensor<1xi4>", "integer constant out of range for type"),
    ("dense<4>", "tensor<1xui2>", "integer constant out of range for type"),
    ("dense<-1>", "tensor<1xui2>", "expected unsigned integer elements, but parsed negative value"),
    ("dense<2>", "tensor<1xi1>", "integer constant out of range for type"),
    ("dense<256>", "tensor<1xi8>", "integer constant out of range for type"),
    ("dense<[1, 2, 300]>", "tensor<3xi8>", "integer constant out of range for type"),
    ("dense<true>", "tensor<1xi8>", "expected i1 type for 'true' or 'false' values"),
    ("dense<[1.5]>", "tensor<1xi8>", "expected integer elements, but parsed floating-point"),
    ("dense<1>", "tensor<1xf32>", "unexpected decimal integer literal for a floating point value"),
    ("dense<[1, 2]>", "tensor<1xi8>", "inferred shape of elements literal ([2]) does not match type ([1])"),
    ("dense<[[1, 2]]>", "tensor<2xi8>", "inferred shape of elements literal ([1, 2]) does not match type ([2])"),
    ("dense<[[1, 2], [3]]>", "tensor<2x2xi8>", "tensor literal is invalid; ranks are not consistent between elements"),
    ('dense<"0x0102">', "tensor<3xi8>", "elements hex data size is invalid for provided type: 'tensor<3xi8>'"),
    ('dense<"abc">', "tensor<1xi8>", "expected string containing hex digits starting with `0x`"),
    ("dense<[1, foo]>", "tensor<2xi32>", "expected element literal of primitive type"),
])
def test_literal_diagnostics(literal, type_text, message):
    assert _error(literal, type_text) == message


@pytest.mark.parametrize("literal,type_text,message", [
    ("1.0e+39", "f32", "float literal '1.0e+39' out of range for type f32"),
    ("-1.0e+39", "f32", "float literal '-1.0e+39' out of range for type f32"),
    ("70000.0", "f16", "float literal '70000.0' out of range for type f16"),
    ("16", "i4", "integer constant out of range for attribute"),
    ("-9", "i4", "integer constant out of range for attribute"),
    ("4", "ui2", "integer constant out of range for attribute"),
    ("-1", "ui2", "negative integer literal not valid for unsigned integer type"),
    ("2", "i1", "integer constant out of range for attribute"),
    ("0x1FFFFFFFF", "f32", "hexadecimal float constant out of range for type"),
    ("-0x7FC00000", "f32", "hexadecimal float literal should not have a leading minus"),
    ("1.5", "i32", "floating point value not valid for specified type"),
])
def test_scalar_literal_diagnostics(literal, type_text, message):
    # MLIR's words (checked with jaxlib's MLIR), except that MLIR rounds an
    # overflowing decimal float to inf where qcomp reports it
    assert _error(literal, type_text) == message


def test_scalar_literals_in_range():
    assert _attr("15", "i4").value.data == -1
    assert _attr("3", "ui2").value.data == 3
    assert math.isnan(_attr("0x7FC00000", "f32").value.data)
    assert _attr("0xFF800000", "f32").value.data == -math.inf


def test_error_points_at_the_element():
    src = '"test.op"() {a = dense<[1, 2, 300]> : tensor<3xi8>} : () -> ()'
    with pytest.raises(ParseError) as info:
        parse_module(src, CTX)
    assert src[info.value.span.start:].startswith("300")


def test_signless_accepts_unsigned_spelling_and_wraps():
    assert _attr("dense<[15, -8, 7]>", "tensor<3xi4>").get_values() == (-1, -8, 7)
    assert _attr("dense<[255, -128]>", "tensor<2xi8>").get_values() == (-1, -128)
    assert _attr("dense<[3, 0]>", "tensor<2xui2>").get_values() == (3, 0)
    assert _attr("dense<[-2, 1]>", "tensor<2xi2>").get_values() == (-2, 1)
    assert _printed("dense<[15, -8, 7]>", "tensor<3xi4>") == "dense<[-1, -8, 7]> : tensor<3xi4>"


def test_i1_true_false_and_ints():
    a = _attr("dense<[true, false, 1, 0]>", "tensor<4xi1>")
    assert [v & 1 for v in a.get_values()] == [1, 0, 1, 0]
    assert _printed("dense<[true, false]>", "tensor<2xi1>") == "dense<[true, false]> : tensor<2xi1>"
    assert _printed("dense<1>", "tensor<1xi1>") == "dense<true> : tensor<1xi1>"


def test_splats_nested_and_empty():
    assert _attr("dense<7>", "tensor<2x3xi8>").get_values() == (7,) * 6
    assert _printed("dense<[[1, 2], [3, 4]]>", "tensor<2x2xi32>") == (
        "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>")
    assert _printed("dense<[[5, 5], [5, 5]]>", "tensor<2x2xi32>") == "dense<5> : tensor<2x2xi32>"
    assert _printed("dense<[3]>", "tensor<1xi8>") == "dense<3> : tensor<1xi8>"
    assert _printed("dense<[]>", "tensor<0xi8>") == "dense<> : tensor<0xi8>"
    assert _printed("dense<>", "tensor<0xi8>") == "dense<> : tensor<0xi8>"
    assert _printed("dense<[[], []]>", "tensor<2x0xi8>") == "dense<> : tensor<2x0xi8>"
    assert _printed("dense<3>", "tensor<i32>") == "dense<3> : tensor<i32>"


# --- hex string form ---------------------------------------------------------


def test_hex_string_reads_little_endian_data_and_splats():
    assert _attr('dense<"0x01020304">', "tensor<2xi16>").get_values() == (513, 1027)
    assert _attr('dense<"0x0000803F">', "tensor<3xf32>").get_values() == (1.0, 1.0, 1.0)
    assert _attr('dense<"0x0F">', "tensor<1xi4>").get_values() == (-1,)
    assert _attr('dense<"0xFF">', "tensor<2xi4>").get_values() == (-1, -1)
    assert [v & 1 for v in _attr('dense<"0x0001">', "tensor<2xi1>").get_values()] == [0, 1]
    assert _printed('dense<"0x05">', "tensor<8xi1>") == "dense<true> : tensor<8xi1>"
    assert _printed('dense<"0x05">', "tensor<200xi8>") == "dense<5> : tensor<200xi8>"


def test_large_constants_print_as_mlir_hex():
    i4 = "dense<[" + ", ".join(str(i % 16 - 8) for i in range(101)) + "]>"
    # MLIR keeps each i4 in one byte, zero-extended: -8 -> 08, -1 -> 0F
    expected = "08090A0B0C0D0E0F0001020304050607" * 6 + "08090A0B0C"
    assert _printed(i4, "tensor<101xi4>") == f'dense<"0x{expected}"> : tensor<101xi4>'
    bools = ["true", "false", "true"] * 66 + ["true", "true"]
    text = _printed("dense<[" + ", ".join(bools) + "]>", "tensor<200xi1>")
    assert text == 'dense<"0x' + "010001" * 66 + '0101"> : tensor<200xi1>'
    bf = "dense<[" + ", ".join(f"{i * 0.5}" for i in range(101)) + "]>"
    assert _printed(bf, "tensor<101xbf16>").startswith('dense<"0x0000003F803FC03F00402040')
    # exactly 100 elements still print as a list
    hundred = "dense<[" + ", ".join(str(i) for i in range(100)) + "]>"
    assert _printed(hundred, "tensor<100xi32>").startswith("dense<[0, 1, 2,")


def test_hex_round_trip_keeps_nan_payload_and_values():
    vals = np.arange(200, dtype=np.float32)
    vals[3] = np.float32(np.nan)
    raw = vals.view(np.uint32).copy()
    raw[5] = 0x7FC00001
    a = _attr('dense<"0x' + raw.tobytes().hex().upper() + '">', "tensor<200xf32>")
    assert mlir_raw_data(a) == raw.tobytes()
    assert dense_body_text(a) == '"0x' + raw.tobytes().hex().upper() + '"'


def test_nan_payloads_survive():
    assert _printed("dense<[0x7FFF, 0xFFFF, 0x7FC0, 0x7F81]>", "tensor<4xbf16>") == (
        "dense<[0x7FFF, 0xFFFF, 0x7FC0, 0x7F81]> : tensor<4xbf16>")
    assert _printed("dense<[0x7FC00001, 0x7F800001]>", "tensor<2xf32>") == (
        "dense<[0x7FC00001, 0x7F800001]> : tensor<2xf32>")
    assert _printed("dense<[0x7E01, 1.0]>", "tensor<2xf16>") == (
        "dense<[0x7E01, 1.000000e+00]> : tensor<2xf16>")


CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"
_PLAIN_LITERAL = re.compile(
    r"dense<[^<>]*> : tensor<[0-9x]*(?:f16|bf16|f32|f64|i1|i[0-9]+|ui[0-9]+)>")


def test_conformance_constants_print_exactly_as_upstream():
    """The conformance programs were printed by MLIR: every constant with a plain
    element type must read and print back to the same text (hex floats, NaN payloads,
    hex strings of large constants, printFloatValue digits)."""
    folder = CONFORMANCE / "testdata_quantized"
    if not folder.is_dir():
        pytest.skip(f"conformance programs not found at {folder} (shared data absent)")
    literals = set()
    for f in folder.glob("*.mlir"):
        literals.update(_PLAIN_LITERAL.findall(f.read_text()))
    # a splat of a zero-element tensor keeps its value in MLIR; xDSL stores no element
    literals = {lit for lit in literals
                if 0 not in [int(d) for d in re.findall(r"(\d+)x", lit.rpartition(" : ")[2])]}
    assert len(literals) > 300
    wrong = []
    for lit in sorted(literals):
        value, _, type_text = lit.rpartition(" : ")
        got = _printed(value, type_text)
        if got != lit:
            wrong.append((lit[:160], got[:160]))
    assert not wrong, f"{len(wrong)} constants print differently, e.g. {wrong[:3]}"


# --- speed -------------------------------------------------------------------


def test_decimal_list_fast_path():
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, size=(128, 512))
    body = "[" + ", ".join("[" + ", ".join(map(str, r)) + "]" for r in a.tolist()) + "]"
    attr = _attr(f"dense<{body}>", "tensor<128x512xi8>")
    assert np.array_equal(np.frombuffer(attr.data.data, np.int8).reshape(128, 512), a)
    f = rng.standard_normal(4096).astype(np.float32)
    fa = _attr("dense<[" + ", ".join(f"{v:.9e}" for v in f.tolist()) + "]>", "tensor<4096xf32>")
    assert np.array_equal(np.frombuffer(fa.data.data, np.float32), f)


def test_f32_decimal_rounding_matches_struct():
    # the decimal -> double -> f32 route MLIR takes
    text = "3.4028235e+38"
    a = _attr(f"dense<[{text[:-4]}0e+38, 1.17549435e-38]>", "tensor<2xf32>")
    assert _bits(a, np.uint32) == [
        struct.unpack("<I", struct.pack("<f", 3.4028235e38))[0],
        struct.unpack("<I", struct.pack("<f", 1.17549435e-38))[0]]


def test_parser_records_op_positions():
    src = 'func.func @f() {\n  "test.op"() : () -> ()\n  func.return\n}\n'
    p = QcompParser(CTX, src)
    module = p.parse_module()
    func = module.ops.first
    inner = list(func.body.block.ops)
    assert src[p.op_positions[inner[0]]:].startswith('"test.op"')
    assert src[p.op_positions[inner[1]]:].startswith("func.return")
    src = 'func.func @g() {\n  %a, %b:2 = "test.op"() : () -> (i1, i1, i1)\n  func.return\n}\n'
    p = QcompParser(CTX, src)
    inner = list(p.parse_module().ops.first.body.block.ops)
    assert src[p.op_positions[inner[0]]:].startswith('"test.op"')
