"""rowwise-legalize-to-stablehlo: the lowered programs give the interpreter's bytes (which
are PyTorch's, tests/quant/test_rowwise.py) on the tables that break quantizers:
signed zeros, infinities, huge ranges, constant rows; and the ops' run errors."""

from __future__ import annotations


import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.passes.rowwise_legalize_to_stablehlo import RowwiseLegalizeToStablehloPass
from qcomp.registry import make_context, parse_module

from tests.quant.rowwise_tables import KINDS, table
from tests.sampling import rowwise_numpy_loops


@pytest.fixture(autouse=True, scope="module")
def numpy_loops_in_ci():
    """The interpreter's side on the NumPy loops in CI (`tests.sampling.rowwise_numpy_loops`:
    the oracle stays torch's bytes, to which test_rowwise.py holds both loops)."""
    with rowwise_numpy_loops():
        yield

ROWS, COLS = 6, 19   # 16 columns in 8-lane vectors, 3 after them (fbgemm's order)

CONVERSIONS = {
    "float_to_fused_8bit": COLS + 8,
    "float_to_fused_4bit": (COLS + 1) // 2 + 4,
    "float_to_fused_2bit": (COLS + 3) // 4 + 4,
    "float_to_fused_4bit_fake": COLS + 8,
    "float_to_fused_2bit_fake": COLS + 8,
}
BACK = {"float_to_fused_8bit": "fused_8bit_to_float", "float_to_fused_4bit": "fused_4bit_to_float",
        "float_to_fused_2bit": "fused_2bit_to_float", "float_to_fused_4bit_fake": "fused_8bit_to_float",
        "float_to_fused_2bit_fake": "fused_8bit_to_float"}


def _program(op: str, width: int) -> str:
    t, f = f"tensor<{ROWS}x{width}xui8>", f"tensor<{ROWS}x{COLS}xf32>"
    return f"""
func.func @main(%x: {f}) -> ({t}, {f}) {{
  %q = rowwise.{op} %x : {f} -> {t}
  %d = rowwise.{BACK[op]} %q : {t} -> {f}
  return %q, %d : {t}, {f}
}}
"""


_LOWERED: dict[str, tuple] = {}


def _modules(src: str):
    """(the program, the program lowered), parsed and lowered once per program text (the
    tests run each on several tables)."""
    if src not in _LOWERED:
        module = parse_module(src)
        lowered = module.clone()
        RowwiseLegalizeToStablehloPass().apply(make_context(), lowered)
        lowered.verify()
        assert not any(o.dialect_name() == "rowwise" for o in lowered.walk())
        _LOWERED[src] = (module, lowered)
    return _LOWERED[src]


def _before_after(src: str, inputs: list[np.ndarray]):
    module, lowered = _modules(src)
    before = run(module, inputs)[0]
    after = run(lowered, inputs)[0]
    assert before.error is None and after.error is None, (before.error, after.error)
    return before.results, after.results


@pytest.mark.parametrize("op", sorted(CONVERSIONS))
def test_conversions_lowered_bit_for_bit(op):
    src = _program(op, CONVERSIONS[op])
    rng = np.random.default_rng(len(op))
    for kind in KINDS:
        x = table(rng, kind, ROWS, COLS)
        before, after = _before_after(src, [x])
        for b, a in zip(before, after):
            assert b.tobytes() == a.tobytes(), (op, kind)


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
@pytest.mark.parametrize("random", [True, False])
def test_random_format_lowered_bit_for_bit(bits, random):
    width = 10 + -(-COLS * bits // 8)
    t, f = f"tensor<{ROWS}x{width}xui8>", f"tensor<{ROWS}x{COLS}xf32>"
    src = f"""
func.func @main(%x: {f}) -> ({t}, {f}) {{
  %q = rowwise.float_to_fused_rand %x {{bitwidth = {bits} : i64, random = {str(random).lower()}, seed = 123 : i64}} : {f} -> {t}
  %d = rowwise.fused_rand_to_float %q {{bitwidth = {bits} : i64}} : {t} -> {f}
  return %q, %d : {t}, {f}
}}
"""
    rng = np.random.default_rng(bits)
    for kind in KINDS:
        before, after = _before_after(src, [table(rng, kind, ROWS, COLS)])
        for b, a in zip(before, after):
            assert b.tobytes() == a.tobytes(), kind


BAGS = """
func.func @main(%t: tensor<7x{w}xui8>, %i: tensor<9xi64>, %len: tensor<4xi32>, %w: tensor<9xf32>,
                %off: tensor<4xi32>)
    -> (tensor<4x{c}xf32>, tensor<4x{c}xf32>, tensor<4x{c}xf32>, tensor<3x{c}xf32>, tensor<4x{c}xf32>) {{
  %s = rowwise.sparse_lengths_sum %t, %i, %len {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<9xi64>, tensor<4xi32>) -> tensor<4x{c}xf32>
  %ws = rowwise.sparse_lengths_weighted_sum %t, %w, %i, %len {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<9xf32>, tensor<9xi64>, tensor<4xi32>) -> tensor<4x{c}xf32>
  %m = rowwise.sparse_lengths_mean %t, %i, %len {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<9xi64>, tensor<4xi32>) -> tensor<4x{c}xf32>
  %e = rowwise.embedding_bag_rowwise_offsets %t, %i, %off weights %w {{bits = {bits} : i64, include_last_offset = true}} : (tensor<7x{w}xui8>, tensor<9xi64>, tensor<4xi32>, tensor<9xf32>) -> tensor<3x{c}xf32>
  %e2 = rowwise.embedding_bag_rowwise_offsets %t, %i, %off {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<9xi64>, tensor<4xi32>) -> tensor<4x{c}xf32>
  return %s, %ws, %m, %e, %e2 : tensor<4x{c}xf32>, tensor<4x{c}xf32>, tensor<4x{c}xf32>, tensor<3x{c}xf32>, tensor<4x{c}xf32>
}}
"""


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_lowered_bit_for_bit(bits):
    from qcomp.quant import rowwise as rw

    cols = 8
    w = rw.fused_width(cols, bits)
    params = 8 if bits == 8 else 4
    src = BAGS.format(w=w, c=cols, bits=bits)
    rng = np.random.default_rng(bits)
    from tests.quant.rowwise_tables import nan_table

    for kind in ("normal", "offset", "magnitudes", "infinities", "nan"):
        x = nan_table(rng, 7, cols) if kind == "nan" else table(rng, kind, 7, cols)
        data = rw.float_to_fused_8bit(x) if bits == 8 else rw.float_to_fused_nbit(x, bits)
        lengths = np.array([3, 0, 4, 2], np.int32)
        idx = rng.integers(0, 7, 9)
        weights = (rng.standard_normal(9) * 10.0).astype(np.float32)
        offsets = np.array([0, 2, 2, 7], np.int32)
        if kind == "nan":   # NaN scales and biases of different payloads, NaN weights
            payload = rng.integers(0, 1 << (22 if bits == 8 else 9), (4, 2))
            nans = (0x7FC00000 | payload).astype("<u4") if bits == 8 else \
                (0x7E00 | payload).astype("<u2")
            data[::2, -params:] = np.ascontiguousarray(nans).view(np.uint8)
            weights[::3] = np.float32(np.nan)
        before, after = _before_after(src, [data, idx, lengths, weights, offsets])
        for k, (b, a) in enumerate(zip(before, after)):
            assert b.tobytes() == a.tobytes(), (kind, k)


def test_run_errors():
    src = BAGS.format(w=16, c=8, bits=8)
    data = np.zeros((7, 16), np.uint8)
    ok = [np.zeros(9, np.float32), np.array([0, 2, 2, 7], np.int32)]
    r = run(parse_module(src), [data, np.array([0] * 8 + [7]), np.array([3, 0, 4, 2], np.int32), *ok])[0]
    assert "index 8 is 7, outside the table's rows [0, 7)" in str(r.error)
    r = run(parse_module(src), [data, np.zeros(9, np.int64), np.array([3, 0, 4, 1], np.int32), *ok])[0]
    assert "the lengths add up to 8, there are 9 indices" in str(r.error)
    rand = """
func.func @main(%q: tensor<1x12xui8>) -> tensor<1x5xf32> {
  %d = rowwise.fused_rand_to_float %q {bitwidth = 2 : i64} : tensor<1x12xui8> -> tensor<1x5xf32>
  return %d : tensor<1x5xf32>
}
"""
    q = np.zeros((1, 12), np.uint8)
    q[0, 0], q[0, 1] = 4, 1
    r = run(parse_module(rand), [q])[0]
    assert "the rows' headers say bitwidth 4 and 3 columns, the op has bitwidth 2 and 5 columns" in str(r.error)


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_lowered_conversions_compile_with_xla_to_torchs_bytes(bits):
    """The lowered programs are XLA programs too (its HLO verifier wants booleans
    compared UNSIGNED): quantized on XLA's CPU backend, the bytes and the dequantized
    floats are torch's `embedding_bag_*_prepack` / `_unpack` bit for bit."""
    torch = pytest.importorskip("torch", reason="torch is not installed (pip install -e '.[test]')")
    from qcomp.backends import xla

    if not xla.is_available():
        pytest.skip(xla.INSTALL_HINT)
    name = {8: "byte", 4: "4bit", 2: "2bit"}[bits]
    rng = np.random.default_rng(60 + bits)
    x = np.concatenate([table(rng, kind, ROWS, 16) for kind in KINDS])
    want_q = getattr(torch.ops.quantized, f"embedding_bag_{name}_prepack")(torch.from_numpy(x))
    want_d = getattr(torch.ops.quantized, f"embedding_bag_{name}_unpack")(want_q).numpy()
    want_q = want_q.numpy()
    f, t = f"tensor<{len(x)}x16xf32>", f"tensor<{len(x)}x{want_q.shape[1]}xui8>"
    module = parse_module(f"""
func.func @main(%x: {f}) -> ({t}, {f}) {{
  %q = rowwise.float_to_fused_{bits}bit %x : {f} -> {t}
  %d = rowwise.fused_{bits}bit_to_float %q : {t} -> {f}
  return %q, %d : {t}, {f}
}}
""")
    RowwiseLegalizeToStablehloPass().apply(make_context(), module)
    (res,) = xla.run(module, [x])
    assert res.error is None, res.error
    assert res.results[0].tobytes() == want_q.tobytes()
    assert res.results[1].tobytes() == want_d.tobytes()


def _xla():
    from qcomp.backends import xla

    if not xla.is_available():
        pytest.skip(xla.INSTALL_HINT)
    return xla


_NAN_CASES: dict[int, list] = {}


def _nan_cases(bits: int) -> list:
    """(x, crafted bytes, torch's bytes of x, torch's floats of crafted, the program
    lowered) for 8, 24 and 40 columns; the unlowered program checked against torch on
    them once (both engines' tests share it)."""
    if bits in _NAN_CASES:
        return _NAN_CASES[bits]
    import torch

    from tests.quant.rowwise_tables import nan_table

    name = {8: "byte", 4: "4bit", 2: "2bit"}[bits]
    prepack = getattr(torch.ops.quantized, f"embedding_bag_{name}_prepack")
    unpack = getattr(torch.ops.quantized, f"embedding_bag_{name}_unpack")
    rng = np.random.default_rng(90 + bits)
    cases = []
    for cols in (8, 24, 40):
        x = nan_table(rng, 12, cols)
        want_q = prepack(torch.from_numpy(x)).numpy()
        # rows 0-3: scale and bias both NaN, different payloads
        crafted = want_q.copy()
        if bits == 8:
            crafted[:4, -8:] = np.array([[0x7FC00011, 0xFFC00022], [0x7F800033, 0x7FC00044],
                                         [0xFFC00055, 0x7F800066], [0x7FC00077, 0x7FC00077]],
                                        "<u4").view(np.uint8)
        else:
            crafted[:4, -4:] = np.array([[0x7E11, 0xFE22], [0x7C33, 0x7E44], [0xFE55, 0x7C66],
                                         [0x7E77, 0x7E77]], "<u2").view(np.uint8)
        want_d = unpack(torch.from_numpy(crafted)).numpy()
        f, t = f"tensor<12x{cols}xf32>", f"tensor<12x{want_q.shape[1]}xui8>"
        module = parse_module(f"""
func.func @main(%x: {f}, %c: {t}) -> ({t}, {f}) {{
  %q = rowwise.float_to_fused_{bits}bit %x : {f} -> {t}
  %d = rowwise.fused_{bits}bit_to_float %c : {t} -> {f}
  return %q, %d : {t}, {f}
}}
""")
        before = run(module, [x, crafted])[0]
        assert before.results[0].tobytes() == want_q.tobytes()
        assert before.results[1].tobytes() == want_d.tobytes()
        RowwiseLegalizeToStablehloPass().apply(make_context(), module)
        cases.append((x, crafted, want_q, want_d, module))
    _NAN_CASES[bits] = cases
    return cases


@pytest.mark.parametrize("bits", [8, 4, 2])
@pytest.mark.parametrize("engine", ["interpreter", "xla"])
def test_nan_rows_lowered_to_torchs_bytes(bits, engine):
    """Rows with NaN (any payload), +-inf and huge values, 8 to 40 columns (fbgemm's
    blocks of 32 and the columns after them): the lowered quantization and
    dequantization give torch's bytes and floats (NaN payloads included), run by the
    interpreter and by XLA; so does the dequantization of rows whose scale and bias are
    both NaN (the scale's NaN, torch's)."""
    pytest.importorskip("torch", reason="torch is not installed (pip install -e '.[test]')")
    for x, crafted, want_q, want_d, module in _nan_cases(bits):
        (res,) = _xla().run(module, [x, crafted]) if engine == "xla" else run(module, [x, crafted])
        assert res.error is None, res.error
        assert res.results[0].tobytes() == want_q.tobytes(), x.shape
        assert res.results[1].tobytes() == want_d.tobytes(), x.shape


def _bag_program(n: int, bits: int = 4) -> str:
    from qcomp.quant import rowwise as rw

    w = rw.fused_width(8, bits)
    return f"""
func.func @main(%t: tensor<7x{w}xui8>, %i: tensor<{n}xi64>, %len: tensor<4xi32>, %off: tensor<4xi64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {{
  %s = rowwise.sparse_lengths_sum %t, %i, %len {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<{n}xi64>, tensor<4xi32>) -> tensor<4x8xf32>
  %e = rowwise.embedding_bag_rowwise_offsets %t, %i, %off {{bits = {bits} : i64}} : (tensor<7x{w}xui8>, tensor<{n}xi64>, tensor<4xi64>) -> tensor<4x8xf32>
  return %s, %e : tensor<4x8xf32>, tensor<4x8xf32>
}}
"""


def test_bag_lowering_does_not_grow_with_the_indices():
    """One while loop over the entries: the same ops for 9 and 5,000 indices."""
    counts = []
    for n in (9, 5000):
        module = parse_module(_bag_program(n))
        RowwiseLegalizeToStablehloPass().apply(make_context(), module)
        counts.append(sum(1 for _ in module.walk()))
    assert counts[0] == counts[1] < 700


@pytest.mark.parametrize("engine", ["interpreter", "xla"])
def test_lowered_bags_refuse_bad_indices_and_lengths(engine):
    """Valid bags give the interpreter's sums; an index outside the table, a negative
    length, lengths not adding up, offsets out of order or past the indices give an
    all-NaN result and a failing check (the interpreter's run error before lowering)."""
    from qcomp.quant import rowwise as rw

    n = 9
    rng = np.random.default_rng(4)
    data = rw.float_to_fused_nbit(rng.standard_normal((7, 8)).astype(np.float32), 4)
    good = [data, rng.integers(0, 7, n), np.array([3, 0, 4, 2], np.int32),
            np.array([0, 2, 2, 7], np.int64)]
    src = _bag_program(n)
    before = run(parse_module(src), good)[0]
    lowered = parse_module(src)
    RowwiseLegalizeToStablehloPass().apply(make_context(), lowered)

    def after(inputs):
        return (_xla().run(lowered, inputs) if engine == "xla" else run(lowered, inputs))[0]

    res = after(good)
    assert res.error is None and all(c.passed for c in res.checks)
    assert [r.tobytes() for r in res.results[:2]] == [r.tobytes() for r in before.results]
    bad_index = good[1].copy()
    bad_index[4] = 7
    cases = {
        "index outside": [data, bad_index, good[2], good[3]],
        "negative index": [data, np.where(np.arange(n) == 2, -1, good[1]), good[2], good[3]],
        "negative length": [data, good[1], np.array([3, -1, 5, 2], np.int32), good[3]],
        "lengths short": [data, good[1], np.array([3, 0, 4, 1], np.int32), good[3]],
        "offsets out of order": [data, good[1], good[2], np.array([0, 5, 2, 7], np.int64)],
        "offset past the end": [data, good[1], good[2], np.array([0, 2, 2, 10], np.int64)],
    }
    for what, inputs in cases.items():
        assert run(parse_module(src), inputs)[0].error is not None, what
        res = after(inputs)
        assert res.error is None, (what, res.error)
        assert not all(c.passed for c in res.checks), what
        sums, bags = res.results[:2]
        bad = sums if what in ("index outside", "negative index", "negative length",
                               "lengths short") else bags
        assert np.isnan(bad).all(), what
        if what.startswith("offset"):
            assert not np.isnan(sums).any(), what


def test_guard_nan_leaves_the_check_out():
    module = parse_module(_bag_program(9))
    RowwiseLegalizeToStablehloPass(guard="nan").apply(make_context(), module)
    assert not any(o.dialect_name() == "check" for o in module.walk())
    assert any(o.name == "stablehlo.while" for o in module.walk())
