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


def _before_after(src: str, inputs: list[np.ndarray]):
    module = parse_module(src)
    before = run(module, inputs)[0]
    RowwiseLegalizeToStablehloPass().apply(make_context(), module)
    module.verify()
    assert not any(o.dialect_name() == "rowwise" for o in module.walk())
    after = run(module, inputs)[0]
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
    src = BAGS.format(w=w, c=cols, bits=bits)
    rng = np.random.default_rng(bits)
    for kind in ("normal", "offset", "magnitudes", "infinities"):
        x = table(rng, kind, 7, cols)
        data = rw.float_to_fused_8bit(x) if bits == 8 else rw.float_to_fused_nbit(x, bits)
        lengths = np.array([3, 0, 4, 2], np.int32)
        idx = rng.integers(0, 7, 9)
        weights = (rng.standard_normal(9) * 10.0).astype(np.float32)
        offsets = np.array([0, 2, 2, 7], np.int32)
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
