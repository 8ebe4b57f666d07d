"""Differential tests: qcomp's interpreter under `stablehlo` semantics against
StableHLO's reference interpreter in jaxlib, bit for bit (REFERENCE.md §4).

Hypothesis draws small programs over every op of the conformance data: quantize ->
op -> dequantize for the elementwise ops, requantize chains, quantized
dot_general / convolution / add on storage integers, and the type-only ops.
Storage types i8, u8, i16, i4 (and i32 results), narrowed ranges, per-tensor and
per-axis parameters, inputs on rounding ties and past saturation.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from qcomp.registry import parse_module
from qcomp.interpreter import run
from tests.interpreter.diff_programs import QType, qdq_program, storage_program, tensor
from tests.interpreter.jax_oracle import AVAILABLE, REASON, eval_upstream
from tests.sampling import examples

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=REASON)

SETTINGS = settings(max_examples=examples(full=30, ci=15), deadline=None, derandomize=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no slow shrinking
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NICE_SCALES = [1.0, 0.5, 2.0, 0.25, 0.1, 0.003921568859368563, 3.0, 0.0078125, 1.5]


@st.composite
def scales(draw):
    if draw(st.booleans()):
        return draw(st.sampled_from(NICE_SCALES))
    return float(np.float32(draw(st.floats(1e-3, 8.0, allow_nan=False))))


@st.composite
def storage_specs(draw, storages=("i8", "u8", "i16", "i4")):
    """(storage, storage_min, storage_max): sometimes a narrowed range like i8<-127:127>."""
    s = draw(st.sampled_from(storages))
    bits, signed = int(s[1:]), s.startswith("i")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if s != "i32" and draw(st.integers(0, 4)) == 0:
        return s, lo + 1, hi - (0 if signed else 1)
    return s, None, None


@st.composite
def qtypes(draw, storages=("i8", "u8", "i16", "i4"), axis_size: int | None = None,
           axis: int | None = None, zero_zp: bool = False, spec=None):
    s, smin, smax = spec if spec is not None else draw(storage_specs(storages))
    bits, signed = int(s[1:]), s.startswith("i")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if smin is not None:
        lo, hi = smin, smax
    n = 1 if axis is None else axis_size
    zlo, zhi = max(lo, -40), min(hi, 40)
    sc = tuple(draw(scales()) for _ in range(n))
    zp = tuple(0 if zero_zp else draw(st.integers(zlo, zhi)) for _ in range(n))
    return QType(s, sc, zp, axis, smin, smax)


@st.composite
def shapes(draw, min_rank=1, max_rank=3, max_dim=4):
    r = draw(st.integers(min_rank, max_rank))
    return tuple(draw(st.integers(1, max_dim)) for _ in range(r))


def float_inputs(draw, shape, q: QType) -> np.ndarray:
    """Values near the quantization grid of `q`: exact points, ties, off-grid, saturating."""
    lo, hi = q.range()
    n = int(np.prod(shape))
    ks = np.array(draw(st.lists(st.integers(lo - 6, hi + 6), min_size=n, max_size=n)), np.float64)
    fr = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, -0.5, 0.25, 0.49, 0.51, 0.123]),
                                min_size=n, max_size=n)))
    s = np.asarray(q.scales, np.float64)
    z = np.asarray(q.zero_points, np.float64)
    if q.axis is not None:
        bshape = [1] * len(shape)
        bshape[q.axis] = len(q.scales)
        s, z = s.reshape(bshape), z.reshape(bshape)
    return ((ks.reshape(shape) + fr.reshape(shape) - z) * s).astype(np.float32)


def storage_inputs(draw, shape, q: QType, limit: int | None = None) -> np.ndarray:
    lo, hi = q.range()
    if limit is not None:
        lo, hi = max(lo, -limit), min(hi, limit)
    n = int(np.prod(shape))
    v = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return np.array(v, dtype=q.np_storage()).reshape(shape)


def assert_same(src: str, args: list[np.ndarray]):
    want = eval_upstream(src, args)
    runs = run(parse_module(src), args, semantics="stablehlo")
    assert len(runs) == 1
    r = runs[0]
    assert r.error is None, r.error.message
    for got, exp in zip(r.results, want):
        got = np.asarray(got)
        assert got.shape == exp.shape
        if exp.dtype.kind == "f":
            same = (got.astype(exp.dtype).view(np.uint32 if exp.itemsize == 4 else np.uint64)
                    == exp.view(np.uint32 if exp.itemsize == 4 else np.uint64)) | \
                (np.isnan(got) & np.isnan(exp))
            assert same.all(), f"\n{src}\nargs={args}\ngot={got}\nwant={exp}"
        else:
            assert np.array_equal(got.astype(np.int64), exp.astype(np.int64)), \
                f"\n{src}\nargs={args}\ngot={got}\nwant={exp}"


UNARY = ["abs", "cbrt", "ceil", "cosine", "exponential", "exponential_minus_one", "floor",
         "log", "log_plus_one", "logistic", "negate", "round_nearest_afz", "round_nearest_even",
         "rsqrt", "sign", "sine", "sqrt", "tanh"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder",
          "atan2"]


@SETTINGS
@given(st.data())
def test_unary_qdq(data):
    op = data.draw(st.sampled_from(UNARY))
    shape = data.draw(shapes())
    spec = data.draw(storage_specs())  # upstream: one storage type per elementwise op
    qi, qo = data.draw(qtypes(spec=spec)), data.draw(qtypes(spec=spec))
    x = float_inputs(data.draw, shape, qi)
    assert_same(qdq_program(op, [shape], [qi], qo), [x])


@SETTINGS
@given(st.data())
def test_binary_qdq(data):
    op = data.draw(st.sampled_from(BINARY))
    shape = data.draw(shapes())
    spec = data.draw(storage_specs())
    qa, qb, qo = (data.draw(qtypes(spec=spec)) for _ in range(3))
    if data.draw(st.booleans()):  # one type throughout (upstream: integer max/min)
        qb = qo = qa
    a, b = float_inputs(data.draw, shape, qa), float_inputs(data.draw, shape, qb)
    assert_same(qdq_program(op, [shape, shape], [qa, qb], qo), [a, b])


@SETTINGS
@given(st.data())
def test_quantize_per_axis_and_requantize_chain(data):
    shape = data.draw(shapes(min_rank=2))
    # upstream's reference interpreter fails ("failed to legalize chlo.broadcast_divide")
    # on per-axis quantize along any dimension but the last, so the oracle covers that one
    axis = len(shape) - 1
    q1 = data.draw(qtypes(axis=axis, axis_size=shape[axis]))
    q2 = data.draw(qtypes(axis=axis, axis_size=shape[axis]))
    q3 = data.draw(qtypes(storages=("i8", "u8", "i16", "i4", "i32")))
    x = float_inputs(data.draw, shape, q1)
    t = lambda q: tensor(shape, q.text())  # noqa: E731
    f = tensor(shape, "f32")
    src = "\n".join([
        f"func.func @main(%x: {f}) -> ({f}, {f}) {{",
        f"  %a = stablehlo.uniform_quantize %x : ({f}) -> {t(q1)}",
        f"  %b = stablehlo.uniform_quantize %a : ({t(q1)}) -> {t(q2)}",
        f"  %c = stablehlo.uniform_quantize %x : ({f}) -> {t(q3)}",
        f"  %d = stablehlo.uniform_quantize %c : ({t(q3)}) -> {t(q2.__class__('i8', (0.37,), (3,)))}",
        f"  %e = stablehlo.uniform_dequantize %b : ({t(q2)}) -> {f}",
        f"  %g = stablehlo.uniform_dequantize %d : ({t(q2.__class__('i8', (0.37,), (3,)))}) -> {f}",
        f"  func.return %e, %g : {f}, {f}",
        "}"])
    assert_same(src, [x])


@st.composite
def dot_case(draw):
    b = draw(st.integers(0, 1))
    m, k, n = draw(st.integers(1, 4)), draw(st.integers(1, 6)), draw(st.integers(1, 4))
    spec = draw(storage_specs(("i8", "i4")))  # upstream: lhs and rhs share the storage type
    lq = draw(qtypes(spec=spec))
    per_axis = draw(st.booleans())
    bsh = (2,) if b else ()
    rshape = bsh + (k, n)
    if per_axis:
        rq = draw(qtypes(spec=spec, axis=len(rshape) - 1, axis_size=n, zero_zp=True))
        base = draw(scales())
        oq = QType("i32" if draw(st.booleans()) else "i8", tuple(base * s for s in rq.scales),
                   (0,) * n, len(bsh) + 1)
    else:
        rq = draw(qtypes(spec=spec, zero_zp=True))
        oq = draw(qtypes(storages=("i8", "i16", "i32")))
    return bsh, m, k, n, lq, rq, oq


@SETTINGS
@given(st.data())
def test_dot_general_quantized(data):
    bsh, m, k, n, lq, rq, oq = data.draw(dot_case())
    lshape, rshape, oshape = bsh + (m, k), bsh + (k, n), bsh + (m, n)
    batch = "batching_dims = [0] x [0], " if bsh else ""
    c = len(bsh)
    op = (f"stablehlo.dot_general {{operands}}, {batch}contracting_dims = [{c + 1}] x [{c}] : "
          f"({{in_types}}) -> {{out_type}}")
    a = storage_inputs(data.draw, lshape, lq)
    b = storage_inputs(data.draw, rshape, rq)
    assert_same(storage_program(op, [lshape, rshape], [lq, rq], oq, oshape), [a, b])


@st.composite
def conv_case(draw):
    nhwc = draw(st.booleans())
    h, w = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    kh, kw = draw(st.integers(1, min(3, h))), draw(st.integers(1, min(3, w)))
    cin, cout = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    pad = [[draw(st.integers(0, 1)), draw(st.integers(0, 1))] for _ in range(2)]
    stride = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    lq = draw(qtypes(storages=("i8",)))
    rq = draw(qtypes(storages=("i8",), zero_zp=draw(st.booleans())))
    oq = draw(qtypes(storages=("i8", "i32")))
    return nhwc, h, w, kh, kw, cin, cout, pad, stride, lq, rq, oq


@SETTINGS
@given(st.data())
def test_convolution_quantized(data):
    nhwc, h, w, kh, kw, cin, cout, pad, stride, lq, rq, oq = data.draw(conv_case())
    oh = (h + pad[0][0] + pad[0][1] - kh) // stride[0] + 1
    ow = (w + pad[1][0] + pad[1][1] - kw) // stride[1] + 1
    if nhwc:
        lshape, layout, oshape = (1, h, w, cin), "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (1, oh, ow, cout)
    else:
        lshape, layout, oshape = (1, cin, h, w), "[b, f, 0, 1]x[0, 1, i, o]->[b, f, 0, 1]", (1, cout, oh, ow)
    rshape = (kh, kw, cin, cout)
    op = (f"stablehlo.convolution({{operands}}) dim_numbers = {layout}, window = {{{{stride = {stride}, "
          f"pad = {pad}}}}} {{{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}}} : "
          f"({{in_types}}) -> {{out_type}}")
    a = storage_inputs(data.draw, lshape, lq)
    b = storage_inputs(data.draw, rshape, rq, limit=20)
    assert_same(storage_program(op, [lshape, rshape], [lq, rq], oq, oshape), [a, b])


@SETTINGS
@given(st.data())
def test_add_quantized_storage(data):
    shape = data.draw(shapes())
    # upstream: operands and result share the storage type
    spec = data.draw(storage_specs(("i8", "u8", "i16", "i4", "i32")))
    qa, qb, qo = (data.draw(qtypes(spec=spec)) for _ in range(3))
    a, b = storage_inputs(data.draw, shape, qa), storage_inputs(data.draw, shape, qb)
    op = "stablehlo.add {operands} : ({in_types}) -> {out_type}"
    assert_same(storage_program(op, [shape, shape], [qa, qb], qo, shape), [a, b])


@SETTINGS
@given(st.data())
def test_type_only_ops(data):
    shape = data.draw(shapes(min_rank=2))
    q = data.draw(qtypes())
    x = storage_inputs(data.draw, shape, q)
    perm = data.draw(st.permutations(range(len(shape))))
    tshape = tuple(shape[p] for p in perm)
    which = data.draw(st.sampled_from(["transpose", "reshape", "concatenate", "gather"]))
    if which == "transpose":
        op, out = f"stablehlo.transpose {{operands}}, dims = {list(perm)} : ({{in_types}}) -> {{out_type}}", tshape
    elif which == "reshape":
        out = (int(np.prod(shape)),)
        op = "stablehlo.reshape {operands} : ({in_types}) -> {out_type}"
    elif which == "concatenate":
        out = (shape[0] * 2,) + shape[1:]
        op = ("stablehlo.concatenate {operands}, {operands}, dim = 0 : ({in_types}, {in_types}) "
              "-> {out_type}")
    else:
        # take rows with clamped (possibly out-of-range) indices, like jnp.take(mode=clip)
        idx = data.draw(st.lists(st.integers(-2, shape[0] + 1), min_size=1, max_size=3))
        out = (len(idx),) + shape[1:]
        rest = list(range(1, len(shape)))
        sizes = ", ".join(str(v) for v in (1,) + shape[1:])
        src = storage_program(
            "\"stablehlo.gather\"({operands}, %i) <{{dimension_numbers = #stablehlo.gather<offset_dims = "
            + str(rest) + ", collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
            "slice_sizes = array<i64: " + sizes + ">}}> : ({in_types}, tensor<" + str(len(idx))
            + "x1xi32>) -> {out_type}", [shape], [q], q, out)
        src = src.replace("{\n", "{\n  %i = stablehlo.constant dense<" + str([[v] for v in idx])
                          + "> : tensor<" + str(len(idx)) + "x1xi32>\n", 1)
        assert_same(src, [x])
        return
    assert_same(storage_program(op, [shape], [q], q, out), [x])


@SETTINGS
@given(st.data())
def test_chain_of_quantized_ops(data):
    shape = data.draw(shapes())
    spec = data.draw(storage_specs())
    q = [data.draw(qtypes(spec=spec)) for _ in range(4)]
    ops = [data.draw(st.sampled_from(BINARY)), data.draw(st.sampled_from(UNARY)),
           data.draw(st.sampled_from(BINARY))]
    a, b = float_inputs(data.draw, shape, q[0]), float_inputs(data.draw, shape, q[1])
    f = tensor(shape, "f32")
    t = [tensor(shape, x.text()) for x in q]
    src = "\n".join([
        f"func.func @main(%a: {f}, %b: {f}) -> {f} {{",
        f"  %qa = stablehlo.uniform_quantize %a : ({f}) -> {t[0]}",
        f"  %qb = stablehlo.uniform_quantize %b : ({f}) -> {t[1]}",
        f'  %x = "stablehlo.{ops[0]}"(%qa, %qb) : ({t[0]}, {t[1]}) -> {t[2]}',
        f'  %y = "stablehlo.{ops[1]}"(%x) : ({t[2]}) -> {t[2]}',
        f'  %z = "stablehlo.{ops[2]}"(%y, %qa) : ({t[2]}, {t[0]}) -> {t[3]}',
        f"  %d = stablehlo.uniform_dequantize %z : ({t[3]}) -> {f}",
        f"  func.return %d : {f}",
        "}"])
    assert_same(src, [a, b])


@SETTINGS
@given(st.data())
def test_hybrid_dot_general(data):
    m, k, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 8)), data.draw(st.integers(1, 4))
    per_axis = data.draw(st.booleans())
    rq = data.draw(qtypes(storages=("i8",), axis=1 if per_axis else None, axis_size=n, zero_zp=True))
    a = (np.array(data.draw(st.lists(st.floats(-4, 4, width=32), min_size=m * k, max_size=m * k)),
                  np.float32).reshape(m, k))
    b = storage_inputs(data.draw, (k, n), rq)
    src = "\n".join([
        f"func.func @main(%a: {tensor((m, k), 'f32')}, %b: {tensor((k, n), 'i8')}) -> {tensor((m, n), 'f32')} {{",
        f"  %qb = stablehlo.bitcast_convert %b : ({tensor((k, n), 'i8')}) -> {tensor((k, n), rq.text())}",
        f"  %r = stablehlo.dot_general %a, %qb, contracting_dims = [1] x [0] : "
        f"({tensor((m, k), 'f32')}, {tensor((k, n), rq.text())}) -> {tensor((m, n), 'f32')}",
        f"  func.return %r : {tensor((m, n), 'f32')}",
        "}"])
    assert_same(src, [a, b])


@SETTINGS
@given(st.data())
def test_convolution_per_axis_integer_path(data):
    h, w = data.draw(st.integers(2, 5)), data.draw(st.integers(2, 5))
    cin, cout = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 4))
    pad = data.draw(st.integers(0, 1))
    lq = data.draw(qtypes(storages=("i8",)))
    rq = data.draw(qtypes(storages=("i8",), axis=3, axis_size=cout, zero_zp=True))
    base = data.draw(scales())
    oq = QType(data.draw(st.sampled_from(["i8", "i32"])), tuple(base * s for s in rq.scales),
               (0,) * cout, 3)
    oh, ow = h + 2 * pad - 1, w + 2 * pad - 1
    op = ("stablehlo.convolution({operands}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
          f"window = {{{{pad = [[{pad}, {pad}], [{pad}, {pad}]]}}}} "
          "{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({in_types}) -> {out_type}")
    a = storage_inputs(data.draw, (1, h, w, cin), lq)
    b = storage_inputs(data.draw, (2, 2, cin, cout), rq, limit=20)
    assert_same(storage_program(op, [(1, h, w, cin), (2, 2, cin, cout)], [lq, rq], oq,
                                (1, oh, ow, cout)), [a, b])


@SETTINGS
@given(st.data())
def test_reduce_precision(data):
    n = data.draw(st.integers(1, 12))
    e, m = data.draw(st.integers(1, 8)), data.draw(st.integers(0, 23))
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 65504.0, 1e-8, 3.0e38, 1.125, -2.5]
    vals = data.draw(st.lists(st.one_of(st.sampled_from(special),
                                        st.floats(-1e6, 1e6, width=32)), min_size=n, max_size=n))
    x = np.array(vals, np.float32)
    t = tensor((n,), "f32")
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %r = stablehlo.reduce_precision %x, format = e{e}m{m} : {t}\n"
           f"  func.return %r : {t}\n}}")
    assert_same(src, [x])
