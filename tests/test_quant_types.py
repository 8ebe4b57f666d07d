"""The quant types: print -> parse round trips of random types, MLIR's float text
(`float_format`), hex bit patterns, and the NumPy accessors."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    Builtin,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from qcomp.ir.float_text import bits_to_float, float_to_bits, format_float, parse_float
from qcomp.dialects.quant import (
    Quant,
    UniformQuantizedType,
    storage_type_range,
)
from tests.sampling import examples

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "stablehlo"

# (type, smallest positive value, largest finite value, NumPy dtype for rounding)
KINDS = {
    "f16": (Float16Type, 2.0**-24, 65504.0, np.float16),
    "bf16": (BFloat16Type, 2.0**-133, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max),
             ml_dtypes.bfloat16),
    "f32": (Float32Type, 2.0**-149, float(np.finfo(np.float32).max), np.float32),
    "f64": (Float64Type, 5e-324, float(np.finfo(np.float64).max), np.float64),
}


def _ctx() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Quant)
    return ctx


def parse_type(text: str):
    return Parser(_ctx(), text).parse_type()


def type_text(t) -> str:
    out = io.StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


# -- random types ------------------------------------------------------------------------

FLOAT_STORAGE = {"f8E5M2": (Float8E5M2Type, 57344), "f8E4M3FN": (Float8E4M3FNType, 448),
                 "f4E2M1FN": (Float4E2M1FNType, 6)}


@st.composite
def storages(draw):
    """(storage type, `build` keywords naming its spelling, storage min, storage max)."""
    if draw(st.integers(0, 9)) == 0:
        cls, top = FLOAT_STORAGE[draw(st.sampled_from(sorted(FLOAT_STORAGE)))]
        storage, spelling, (lo, hi) = cls(), {}, (-top, top)
    else:
        width = draw(st.integers(1, 32))
        prefix = draw(st.sampled_from(["i", "si", "u", "ui"]))
        lo, hi = storage_type_range(width, prefix in ("i", "si"))
        storage, spelling = IntegerType(width), {"spelling": prefix}
    smin, smax = lo, hi
    if draw(st.booleans()):
        smin = draw(st.integers(lo, hi - 1))
        smax = draw(st.integers(smin + 1, hi))
    return storage, spelling, smin, smax


def scales(kind: str, in_kind_precision: bool):
    _, lo, hi, dtype = KINDS[kind]
    s = st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)
    if in_kind_precision:
        # sub-channel scales are stored in the expressed type
        s = s.map(lambda x: float(dtype(x))).filter(lambda x: lo <= x <= hi)
    return s


@st.composite
def uniform_types(draw, flavour: str | None = None):
    """(type, a tensor shape it fits)."""
    storage, spelling, smin, smax = draw(storages())
    kind = draw(st.sampled_from(sorted(KINDS)))
    expressed = KINDS[kind][0]()
    flavour = flavour or draw(st.sampled_from(["tensor", "axis", "block"]))
    # zero points outside the storage range are legal types, as in MLIR
    zps = st.integers(smin, smax) | st.integers(-(1 << 63), (1 << 63) - 1)
    if flavour == "tensor":
        t = UniformQuantizedType.per_tensor(storage, expressed, draw(scales(kind, False)),
                                            draw(zps), storage_min=smin, storage_max=smax,
                                            **spelling)
        shape = draw(st.lists(st.integers(1, 4), max_size=3))
        return t, tuple(shape)
    if flavour == "axis":
        rank = draw(st.integers(1, 4))
        axis = draw(st.integers(0, rank - 1))
        count = draw(st.integers(1, 5))
        t = UniformQuantizedType.per_axis(
            storage, expressed, axis, draw(st.lists(scales(kind, False), min_size=count,
                                                    max_size=count)),
            draw(st.lists(zps, min_size=count, max_size=count)), storage_min=smin,
            storage_max=smax, **spelling)
        shape = [draw(st.integers(1, 3)) for _ in range(rank)]
        shape[axis] = count
        return t, tuple(shape)
    rank = draw(st.integers(1, 3))
    perm = draw(st.permutations(list(range(rank))))
    dims = perm[: draw(st.integers(1, rank))]
    blocks = [draw(st.integers(1, 4)) for _ in dims]
    counts = {d: draw(st.integers(1, 3)) for d in dims}
    params_shape = [counts.get(d, 1) for d in range(rank)]
    n = math.prod(params_shape)
    t = UniformQuantizedType.build(
        storage, expressed, draw(st.lists(scales(kind, True), min_size=n, max_size=n)),
        draw(st.lists(zps, min_size=n, max_size=n)), quantized_dimensions=dims,
        block_sizes=blocks, params_shape=params_shape, storage_min=smin, storage_max=smax,
        **spelling)
    block_of = dict(zip(dims, blocks))
    shape = [counts[d] * block_of[d] if d in block_of else draw(st.integers(1, 3))
             for d in range(rank)]
    return t, tuple(shape)


_SETTINGS = settings(max_examples=examples(full=150, ci=75), deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(uniform_types())
@example((UniformQuantizedType.build(IntegerType(1, Signedness.UNSIGNED), Float32Type(),
                                     [1000001.0], [0], quantized_dimensions=[0],
                                     block_sizes=[1], params_shape=[1]), (1,)))
def test_print_parse_round_trip(case):
    t, shape = case
    text = type_text(t)
    back = parse_type(text)
    assert back == t, text
    assert type_text(back) == text
    t.verify_for_shape(shape)


@_SETTINGS
@given(uniform_types("tensor"))
def test_per_tensor_text(case):
    t, _ = case
    text = type_text(t)
    if t.is_float_storage:
        head = {Float8E5M2Type: "f8E5M2", Float8E4M3FNType: "f8E4M3FN",
                Float4E2M1FNType: "f4E2M1FN"}[type(t.storage_type)]
    else:
        prefix = {(Signedness.SIGNLESS, True): "i", (Signedness.SIGNED, True): "si",
                  (Signedness.SIGNLESS, False): "u", (Signedness.UNSIGNED, False): "ui"}
        head = prefix[t.storage_type.signedness.data, t.is_signed] + str(t.storage_bitwidth)
    if t.has_storage_bounds:
        head += f"<{t.storage_min}:{t.storage_max}>"
    kind = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32",
            Float64Type: "f64"}[type(t.expressed_type)]
    param = format_float(t.scale) + (f":{t.zero_point}" if t.zero_point else "")
    assert text == f"!quant.uniform<{head}:{kind}, {param}>"


@_SETTINGS
@given(uniform_types("axis"))
def test_per_axis_wrong_size_is_rejected(case):
    t, shape = case
    bad = list(shape)
    bad[t.quantized_dimension] += 1
    with pytest.raises(VerifyException, match="quantized dimension size does not match "
                                              "number of scales"):
        t.verify_for_shape(tuple(bad))
    with pytest.raises(VerifyException, match="quantized dimension must be less than tensor "
                                              "rank"):
        t.verify_for_shape(tuple(shape[: t.quantized_dimension]))


@_SETTINGS
@given(uniform_types("block"))
def test_block_size_not_dividing_is_rejected(case):
    t, shape = case
    d, b = t.quantized_dimensions[0], t.block_sizes[0]
    bad = list(shape)
    bad[d] += 1 if b > 1 else b
    with pytest.raises(VerifyException):
        t.verify_for_shape(tuple(bad))


# -- exact texts, as upstream MLIR prints them ----------------------------------------------

@pytest.mark.parametrize("written, printed", [
    ("!quant.uniform<i8:f32, 0.01:50>", "!quant.uniform<i8:f32, 1.000000e-02:50>"),
    ("!quant.uniform<i8:f32, 0.01:0>", "!quant.uniform<i8:f32, 1.000000e-02>"),
    ("!quant.uniform<i8:f32, 0.0039188104517319626:-128>",
     "!quant.uniform<i8:f32, 0.0039188104517319626:-128>"),
    ("!quant.uniform<i8:f32, 1.5350925350904778e-05>",
     "!quant.uniform<i8:f32, 1.5350925350904778E-5>"),
    ("!quant.uniform<i8<-127:127>:f32, 0.5>", "!quant.uniform<i8<-127:127>:f32, 5.000000e-01>"),
    ("!quant.uniform<i8<-128:127>:f32, 0.5>", "!quant.uniform<i8:f32, 5.000000e-01>"),
    ("!quant.uniform<u4<1:14>:f16, 2.0:7>", "!quant.uniform<u4<1:14>:f16, 2.000000e+00:7>"),
    ("!quant.uniform<i8:f64, 0x3F847AE147AE147B>", "!quant.uniform<i8:f64, 1.000000e-02>"),
    ("!quant.uniform<i8:f64, 4.9406564584124654E-324>", "!quant.uniform<i8:f64, 4.940660e-324>"),
    ("!quant.uniform<i8:f16, 5.9604644775390625E-8>",
     "!quant.uniform<i8:f16, 5.9604644775390625E-8>"),
    ("!quant.uniform<i8:f32:1, {0.2:20, 0.1:10}>",
     "!quant.uniform<i8:f32:1, {2.000000e-01:20,1.000000e-01:10}>"),
    ("!quant.uniform<i8:bf16:{0:1, 1:2}, {{0.1, 0.2}, {0.3, 0.4}}>",
     "!quant.uniform<i8:bf16:{0:1, 1:2}, {{1.000980e-01, 2.001950e-01}, "
     "{3.007810e-01, 4.003910e-01}}>"),
    ("!quant.uniform<i8:f16:{1:2, 0:1}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>",
     "!quant.uniform<i8:f16:{1:2, 0:1}, {{1.000000e+00:1, 2.000000e+00:2}, "
     "{3.000000e+00:3, 4.000000e+00:4}}>"),
    # f16's smallest scale prints in f16 precision, a hair below 2^-24, and reads back
    ("!quant.uniform<i8:f16:{0:1}, {5.9604644775390625E-8}>",
     "!quant.uniform<i8:f16:{0:1}, {5.960460e-08}>"),
    ("!quant.any<i8<-8:7>:f32>", "!quant.any<i8<-8:7>:f32>"),
    # storage as written, zero points outside the storage range
    ("!quant.uniform<ui8:f32, 34.0:16>", "!quant.uniform<ui8:f32, 3.400000e+01:16>"),
    ("!quant.uniform<si8<-8:7>:f32, 0.99872:127>",
     "!quant.uniform<si8<-8:7>:f32, 9.987200e-01:127>"),
    ("!quant.uniform<u8:f32, 1.0:-120>", "!quant.uniform<u8:f32, 1.000000e+00:-120>"),
    ("!quant.uniform<ui1<0:1>:f32, 1.0>", "!quant.uniform<ui1:f32, 1.000000e+00>"),
    ("!quant.uniform<f8E4M3FN:f32, 2.0:3>", "!quant.uniform<f8E4M3FN:f32, 2.000000e+00:3>"),
    ("!quant.uniform<f4E2M1FN<-6:5>:f16:0, {2.0:3}>",
     "!quant.uniform<f4E2M1FN<-6:5>:f16:0, {2.000000e+00:3}>"),
    ("!quant.any<si8<-8:7>:f32>", "!quant.any<si8<-8:7>:f32>"),
    ("!quant.any<f8E5M2>", "!quant.any<f8E5M2>"),
    ("!quant.any<u4>", "!quant.any<u4>"),
    ("!quant.calibrated<f32<-0.998:1.2321>>", "!quant.calibrated<f32<-0.998:1.232100e+00>>"),
])
def test_mlir_text(written, printed):
    # each `printed` was produced by upstream MLIR (tosa-opt, LLVM 24) from `written`
    t = parse_type(written)
    assert type_text(t) == printed
    assert parse_type(printed) == t


@pytest.mark.parametrize("text, message", [
    ("!quant.uniform<i0:f32, 1.0>", "illegal storage type size: 0"),
    ("!quant.uniform<i33:f32, 1.0>", "illegal storage type size: 33"),
    ("!quant.uniform<u8<-1:15>:f32, 1.0>", "illegal storage type minimum: -1"),
    ("!quant.uniform<i8<5:3>:f32, 1.0>", r"illegal storage min and storage max: \(5:3\)"),
    ("!quant.uniform<i8:f32, 0.0>",
     r"scale 0.000000e\+00 out of expressed type range \[1.401298e-45, 3.402823e\+38\]"),
    ("!quant.uniform<i8:f16, 0x3FF0000000000000:9223372036854775808>",
     "integer value too large"),
    ("!quant.uniform<u:f32, 1.0>", "expected storage type width"),
    ("!quant.uniform<f8E4M3FNUZ:f32, 1.0>", "illegal storage type prefix"),
    ("!quant.uniform<f8E5M2<-57345:0>:f32, 1.0>", "illegal storage type minimum: -57345"),
    ("!quant.uniform<f8:f32, 1.0>", "illegal storage type prefix"),
    ("!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0, 2.0}, {3.0}}>",
     "ranks are not consistent between elements"),
])
def test_bad_text_is_a_parse_error(text, message):
    with pytest.raises(ParseError, match=message):
        parse_type(text)


# -- float_format ---------------------------------------------------------------------------

# texts checked against upstream MLIR (tosa-opt, LLVM 24) printing dense<> constants
# and quant scales
@pytest.mark.parametrize("value, kind, text", [
    (1.0, "f32", "1.000000e+00"),
    (0.99872, "f64", "9.987200e-01"),
    (float(np.float32(0.99872)), "f32", "0.99871999"),
    (float(np.float32(0.998719)), "f32", "0.998718976"),
    (float(np.float32(0.1)), "f32", "1.000000e-01"),
    (float(np.float16(0.99872)), "f16", "9.985350e-01"),
    (float(np.float16(0.00097)), "f16", "9.698860e-04"),
    (float(ml_dtypes.bfloat16(0.99872)), "bf16", "1.000000e+00"),
    (float(ml_dtypes.bfloat16(3.14159)), "bf16", "3.140630e+00"),
    (float(np.float32(2.47494364)), "f32", "2.47494364"),
    (0.01, "f64", "1.000000e-02"),
    (0.0039188104517319626, "f64", "0.0039188104517319626"),
    (1.5350925350904778e-05, "f64", "1.5350925350904778E-5"),
    (123456.789, "f64", "123456.789"),
    (1e20, "f64", "1.000000e+20"),
    (5e-324, "f64", "4.940660e-324"),
    (1.7976931348623157e308, "f64", "1.7976931348623157E+308"),
    (2.0**-24, "f64", "5.9604644775390625E-8"),
    (2.0**-24, "f16", "5.960460e-08"),
    (65504.0, "f16", "6.550400e+04"),
    (bits_to_float(0x3DCD, "bf16"), "bf16", "1.000980e-01"),
    (-0.998, "f64", "-0.998"),
    (0.0, "f32", "0.000000e+00"),
    (-0.0, "f32", "-0.000000e+00"),
    (math.nan, "f32", "0x7FC00000"),
    (-math.inf, "f32", "0xFF800000"),
    (math.inf, "f16", "0x7C00"),
    (math.inf, "f64", "0x7FF0000000000000"),
])
def test_format_float_known_texts(value, kind, text):
    assert format_float(value, kind) == text


def _conformance_files():
    if not SHARED.is_dir():
        pytest.skip(f"conformance data not found at {SHARED}")
    return sorted((SHARED / "testdata_quantized").glob("*.mlir"))


def test_format_float_matches_conformance_scales():
    """Every scale in the upstream-printed conformance programs prints back verbatim."""
    seen: set[str] = set()
    for path in _conformance_files():
        for body in re.findall(r"!quant\.uniform<[^>]*>", path.read_text()):
            params = body.split(",", 1)[1]
            seen.update(re.findall(r"(?<=[ ,{])([0-9][0-9.eE+-]*)(?=[:,}>])", params))
    scales = sorted(s for s in seen if "." in s or "e" in s.lower())
    assert len(scales) > 50
    assert [format_float(float(s)) for s in scales] == scales


def test_format_float_matches_conformance_f32_constants():
    seen: set[str] = set()
    for path in _conformance_files():
        for m in re.finditer(r"dense<(\[[^>\"]*\]|[^\[>\"]*)> : tensor<[0-9x]*f32>",
                             path.read_text()):
            seen.update(re.findall(r"[-+]?[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?", m.group(1)))
    texts = sorted(seen)
    assert "2.47494364" in texts
    assert [format_float(parse_float(t, "f32"), "f32") for t in texts] == texts


@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(sorted(KINDS)))
@settings(max_examples=examples(full=300, ci=150), deadline=None)
def test_format_float_reads_back(x, kind):
    dtype = KINDS[kind][3]
    with np.errstate(over="ignore"):
        v = float(dtype(x))
    text = format_float(v, kind)
    if math.isinf(v):
        assert text.startswith("0x")
    assert float_to_bits(parse_float(text, kind), kind) == float_to_bits(v, kind)


@pytest.mark.parametrize("text, kind, bits", [
    ("0x7FC00000", "f32", 0x7FC00000),
    ("0xFF800000", "f32", 0xFF800000),
    ("0x3F800000", "f32", 0x3F800000),
    ("0x7C00", "f16", 0x7C00),
    ("0xFFC0", "bf16", 0xFFC0),
    ("0x3F80", "bf16", 0x3F80),
    ("0x3FF0000000000000", "f64", 0x3FF0000000000000),
    ("0x7FF8000000000001", "f64", 0x7FF8000000000001),
])
def test_parse_float_hex_is_a_bit_pattern(text, kind, bits):
    assert float_to_bits(parse_float(text, kind), kind) == bits


def test_parse_float_hex_values():
    assert parse_float("0x3F800000", "f32") == 1.0
    assert parse_float("0xFF800000", "f32") == -math.inf
    assert math.isnan(parse_float("0x7FC00000", "f32"))
    assert parse_float("0x3C00", "f16") == 1.0
    assert parse_float("0x3F80", "bf16") == 1.0


@pytest.mark.parametrize("text, kind, message", [
    ("0x1FFFF", "f16", "out of range"),
    ("-0x3F800000", "f32", "leading minus"),
    ("1.0e39", "f32", "out of range"),
    ("70000.0", "f16", "out of range"),
    ("abc", "f32", "expected float literal"),
])
def test_parse_float_errors(text, kind, message):
    with pytest.raises(ValueError, match=message):
        parse_float(text, kind)


def test_parse_float_rounds_to_the_kind():
    assert parse_float("0.1", "f32") == float(np.float32(0.1))
    assert parse_float("0.1", "f16") == float(np.float16(0.1))
    assert float_to_bits(parse_float("0.1", "bf16"), "bf16") == 0x3DCD


# -- accessors ------------------------------------------------------------------------------

def test_per_tensor_accessors():
    t = parse_type("!quant.uniform<i8<-127:127>:f32, 0.5:-3>")
    assert (t.scale, t.zero_point, t.storage_min, t.storage_max) == (0.5, -3, -127, 127)
    assert t.is_per_tensor and not t.is_per_axis and not t.is_blockwise
    s = t.broadcast_scales((2, 3))
    assert s.shape == (1, 1) and s.dtype == np.float64 and s[0, 0] == 0.5
    z = t.broadcast_zero_points((2, 3))
    assert z.shape == (1, 1) and z.dtype == np.int64 and z[0, 0] == -3


def test_per_axis_accessors():
    t = parse_type("!quant.uniform<u8:f32:1, {0.2:20, 0.1:10, 0.3:30}>")
    assert t.is_per_axis and t.quantized_dimension == 1
    assert not t.is_signed and (t.storage_min, t.storage_max) == (0, 255)
    np.testing.assert_array_equal(t.scales, [0.2, 0.1, 0.3])
    np.testing.assert_array_equal(t.zero_points, [20, 10, 30])
    s = t.broadcast_scales((2, 3, 4))
    assert s.shape == (1, 3, 1)
    np.testing.assert_array_equal(s[0, :, 0], [0.2, 0.1, 0.3])
    z = t.broadcast_zero_points((2, 3, 4))
    assert z.shape == (1, 3, 1)
    np.testing.assert_array_equal(z[0, :, 0], [20, 10, 30])
    with pytest.raises(ValueError):
        _ = t.scale


def test_blockwise_accessors():
    t = parse_type("!quant.uniform<i8:f32:{0:1, 1:2}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>")
    assert t.is_blockwise and t.quantized_dimensions == (0, 1) and t.block_sizes == (1, 2)
    assert t.params_shape == (2, 2)
    np.testing.assert_array_equal(t.broadcast_scales((2, 4)),
                                  [[1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]])
    np.testing.assert_array_equal(t.broadcast_zero_points((2, 4)),
                                  [[1, 1, 2, 2], [3, 3, 4, 4]])
    t.verify_for_shape((2, 4))
    with pytest.raises(VerifyException, match="must be divisible by the corresponding block "
                                              "size 2"):
        t.verify_for_shape((2, 5))


def test_blockwise_one_dimension_accessors():
    # blocks of 3 along a 6-element axis
    t = parse_type("!quant.uniform<i8:f32:{0:3}, {0.5:1, 0.25:2}>")
    np.testing.assert_array_equal(t.broadcast_scales((6,)), [0.5] * 3 + [0.25] * 3)
    np.testing.assert_array_equal(t.broadcast_zero_points((6,)), [1, 1, 1, 2, 2, 2])
    # blocks of 3 along axis 1 of a 2x6 tensor; axis 0 is one block
    t = parse_type("!quant.uniform<i8:f32:{1:3}, {{0.5, 0.25}}>")
    t.verify_for_shape((2, 6))
    s = t.broadcast_scales((2, 6))
    assert s.shape == (1, 6)
    np.testing.assert_array_equal(s[0], [0.5] * 3 + [0.25] * 3)


def _bf16_exact(x: float) -> float:
    """Reference double -> bf16 rounding with exact rationals (ties to even)."""
    from fractions import Fraction

    if x == 0 or not math.isfinite(x):
        return x
    f = abs(Fraction(x))
    exponent = math.floor(math.log2(f))
    if Fraction(2) ** exponent > f:  # log2 rounding at the boundary
        exponent -= 1
    exponent = max(exponent, -126)  # subnormals share the smallest exponent
    ulp = Fraction(2) ** (exponent - 7)
    q, r = divmod(f, ulp)
    if r > ulp / 2 or (r == ulp / 2 and q % 2 == 1):
        q += 1
    value = float(q * ulp) if q * ulp < Fraction(2) ** 128 else math.inf
    return math.copysign(value, x)


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
@example(5.316235628888126e-41)   # subnormal, rounds up to 2^-133
@example(2.0**-134)               # tie between 0 and 2^-133: even is 0
@example(1 + 2**-8 + 2**-30)      # just above a tie
@example(3.3961e38)               # above max + half an ulp: overflow
@settings(max_examples=examples(full=500, ci=250), deadline=None)
def test_bf16_rounding_is_single(x):
    expected = _bf16_exact(x)
    if math.isinf(expected):
        with pytest.raises(ValueError, match="out of range"):
            parse_float(repr(x), "bf16")
    else:
        assert float_to_bits(parse_float(repr(x), "bf16"), "bf16") == float_to_bits(
            expected, "bf16")


def test_bf16_rounding_does_not_go_through_f32():
    # 1 + 2^-8 + 2^-30 lies just above the bf16 tie between 1 and 1 + 2^-7; rounding
    # to f32 first would land on the tie and then round to even (1.0)
    x = 1 + 2**-8 + 2**-30
    assert parse_float(repr(x), "bf16") == 1 + 2**-7
    assert parse_float(repr(1 + 2**-8), "bf16") == 1.0
    assert parse_float(repr(1 + 3 * 2**-8), "bf16") == 1 + 2**-6


def test_spellings_are_distinct_types_with_one_integer_form():
    """As in MLIR (tosa-opt rejects returning a `ui8` value as `u8`): four spellings, four
    types; qcomp's integer form of the storage (`storage`) is shared by `u8` / `ui8` and
    by `i8` / `si8`, MLIR's storage type (`storage_type`) by `u8` / `i8`."""
    t = {p: parse_type(f"!quant.uniform<{p}8:f32, 1.0>") for p in ("i", "si", "u", "ui")}
    assert len(set(t.values())) == 4
    assert [type_text(t[p]) for p in t] == [f"!quant.uniform<{p}8:f32, 1.000000e+00>"
                                            for p in t]
    assert t["u"].storage == t["ui"].storage == IntegerType(8, Signedness.UNSIGNED)
    assert t["i"].storage == t["si"].storage == IntegerType(8)
    assert t["u"].storage_type == t["i"].storage_type == IntegerType(8)
    assert t["ui"].storage_type == IntegerType(8, Signedness.UNSIGNED)
    assert t["si"].storage_type == IntegerType(8, Signedness.SIGNED)
    assert [t[p].is_signed for p in t] == [True, True, False, False]
    assert [(t[p].storage_min, t[p].storage_max) for p in t] == [(-128, 127)] * 2 + [(0, 255)] * 2


def test_float_storage_is_its_float_type():
    t = parse_type("!quant.uniform<f8E4M3FN:f32, 2.0:3>")
    assert t.is_float_storage and t.storage_bitwidth == 8 and t.is_signed
    assert (t.storage_min, t.storage_max) == (-448, 448)
    assert t.storage == t.storage_type == Float8E4M3FNType()
