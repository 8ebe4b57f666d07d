"""Quantized cholesky, triangular_solve, batch_norm_* , scatter and select_and_scatter:
the spec's dequantize-op-quantize (for scatter and select_and_scatter the bodies' own
quantized ops, per update). The oracle: the spec's `dequantize` / `quantize` formulas
and NumPy's float ops, written here (upstream's interpreter cannot run these: its
quant-to-math lowering rejects quantized scatter and it does not run cholesky)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module

S, Z = 0.25, 2
Q = f"!quant.uniform<i8:f32, {S}:{Z}>"


def dq(q) -> np.ndarray:
    return (np.asarray(q, np.float64) - Z) * S


def quantize(x) -> np.ndarray:
    """The spec's quantize: x / s + zp, clamped, rounded half to even (in f32)."""
    v = np.float32(np.asarray(x, np.float64)) / np.float32(S) + np.float32(Z)
    return np.round(np.clip(v, -128, 127)).astype(np.int8)


def _bits(shape: str) -> tuple[str, str]:
    return f"tensor<{shape}xi8>", f"tensor<{shape}x{Q}>"


def _run(src: str, *args, semantics: str = "spec") -> list[np.ndarray]:
    (r,) = run(parse_module(src), list(args), semantics=semantics)
    assert r.error is None, r.error.message
    return r.results


def _wrap(params: list[tuple[str, str]], body: list[str], results: list[tuple[str, str]]) -> str:
    """@main over i8 storage: bitcast in, `body`, bitcast out."""
    sig = ", ".join(f"%{n}: {_bits(s)[0]}" for n, s in params)
    outs = ", ".join(_bits(s)[0] for _, s in results)
    lines = [f"func.func @main({sig}) -> ({outs}) {{"]
    lines += [f"  %q{n} = stablehlo.bitcast_convert %{n} : ({_bits(s)[0]}) -> {_bits(s)[1]}"
              for n, s in params]
    lines += ["  " + b for b in body]
    lines += [f"  %o{n} = stablehlo.bitcast_convert %{n} : ({_bits(s)[1]}) -> {_bits(s)[0]}"
              for n, s in results]
    lines.append("  return " + ", ".join(f"%o{n}" for n, _ in results) + " : " + outs)
    return "\n".join(lines + ["}"])


A = np.array([[30, 2, 1], [6, 40, 3], [1, 5, 50]], np.int8)  # dequantized: diagonally dominant


@pytest.mark.parametrize("semantics", ["spec", "stablehlo"])
def test_cholesky(semantics):
    src = _wrap([("a", "3x3")], [f"%r = stablehlo.cholesky %qa, lower = true : {_bits('3x3')[1]}"],
                [("r", "3x3")])
    (got,) = _run(src, A, semantics=semantics)
    a = dq(A)
    lower = np.tril(a) + np.tril(a, -1).T  # the lower triangle is read
    assert got.tolist() == quantize(np.linalg.cholesky(lower)).tolist()


def test_triangular_solve():
    b = np.array([[10, -20], [30, 4], [-50, 60]], np.int8)
    src = _wrap([("a", "3x3"), ("b", "3x2")], [
        f'%r = "stablehlo.triangular_solve"(%qa, %qb) {{left_side = true, lower = true, '
        f'unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}} : '
        f"({_bits('3x3')[1]}, {_bits('3x2')[1]}) -> {_bits('3x2')[1]}"], [("r", "3x2")])
    (got,) = _run(src, A, b)
    want = np.linalg.solve(np.tril(dq(A)), dq(b))
    assert got.tolist() == quantize(want).tolist()


X = np.array([[[10, -7], [33, 4]], [[-20, 50], [8, 9]]], np.int8)  # 2x2x2, feature dim 2
SC, OF = np.array([6, 10], np.int8), np.array([-4, 12], np.int8)


def test_batch_norm_inference_and_training():
    mean, var = np.array([0, 6], np.int8), np.array([10, 22], np.int8)
    t, f = _bits("2x2x2")[1], _bits("2")[1]
    src = _wrap([("x", "2x2x2"), ("s", "2"), ("o", "2"), ("m", "2"), ("v", "2")], [
        f'%r = "stablehlo.batch_norm_inference"(%qx, %qs, %qo, %qm, %qv) {{epsilon = 1.0e-3 : f32, '
        f"feature_index = 2 : i64}} : ({t}, {f}, {f}, {f}, {f}) -> {t}",
        f'%n, %bm, %bv = "stablehlo.batch_norm_training"(%qx, %qs, %qo) {{epsilon = 1.0e-3 : f32, '
        f"feature_index = 2 : i64}} : ({t}, {f}, {f}) -> ({t}, {f}, {f})"],
        [("r", "2x2x2"), ("n", "2x2x2"), ("bm", "2"), ("bv", "2")])
    r, n, bm, bv = _run(src, X, SC, OF, mean, var)
    x, s, o = dq(X), dq(SC), dq(OF)
    eps = float(np.float32(1e-3))
    assert r.tolist() == quantize((x - dq(mean)) / np.sqrt(dq(var) + eps) * s + o).tolist()
    mu, sigma2 = x.mean(axis=(0, 1)), x.var(axis=(0, 1))
    assert bm.tolist() == quantize(mu).tolist() and bv.tolist() == quantize(sigma2).tolist()
    assert n.tolist() == quantize((x - mu) / np.sqrt(sigma2 + eps) * s + o).tolist()


def _add(a, b):
    """A quantized `add` body: dequantize, add, quantize."""
    return quantize(dq(a) + dq(b))


@pytest.mark.parametrize("semantics", ["spec", "stablehlo"])
def test_scatter_body_runs_quantized_per_update(semantics):
    x = np.array([1, 100, 7, -128, 127], np.int8)
    u = np.array([10, 20, 120, 5], np.int8)
    t5, t4, e = _bits("5")[1], _bits("4")[1], f"tensor<{Q}>"
    src = _wrap([("x", "5"), ("u", "4")], [
        "%i = stablehlo.constant dense<[[0], [2], [2], [4]]> : tensor<4x1xi32>",
        '%r = "stablehlo.scatter"(%qx, %i, %qu) ({',
        f"^bb0(%a: {e}, %b: {e}):",
        f"  %s = stablehlo.add %a, %b : {e}",
        f"  stablehlo.return %s : {e}",
        "}) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
        "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : "
        f"({t5}, tensor<4x1xi32>, {t4}) -> {t5}"], [("r", "5")])
    (got,) = _run(src, x, u, semantics=semantics)
    want = x.copy()
    for idx, v in zip([0, 2, 2, 4], u):  # in update order, each add quantized
        want[idx] = _add(want[idx], v)
    assert got.tolist() == want.tolist()


def test_select_and_scatter_bodies_run_quantized():
    operand = np.array([3, 9, 9, 1, 40, 2], np.int8)
    source = np.array([50, 100, 70], np.int8)
    init = np.array(-20, np.int8)
    t6, t3, e = _bits("6")[1], _bits("3")[1], f"tensor<{Q}>"
    src = (f"func.func @main(%x: tensor<6xi8>, %s: tensor<3xi8>, %i: tensor<i8>) -> tensor<6xi8> {{\n"
           f"  %qx = stablehlo.bitcast_convert %x : (tensor<6xi8>) -> {t6}\n"
           f"  %qs = stablehlo.bitcast_convert %s : (tensor<3xi8>) -> {t3}\n"
           f"  %qi = stablehlo.bitcast_convert %i : (tensor<i8>) -> {e}\n"
           f'  %r = "stablehlo.select_and_scatter"(%qx, %qs, %qi) ({{\n'
           f"  ^bb0(%a: {e}, %b: {e}):\n"
           f"    %c = stablehlo.compare GE, %a, %b : ({e}, {e}) -> tensor<i1>\n"
           f"    stablehlo.return %c : tensor<i1>\n"
           f"  }}, {{\n"
           f"  ^bb0(%a: {e}, %b: {e}):\n"
           f"    %t = stablehlo.add %a, %b : {e}\n"
           f"    stablehlo.return %t : {e}\n"
           f"  }}) {{window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, "
           f"padding = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t6}, {t3}, {e}) -> {t6}\n"
           f"  %o = stablehlo.bitcast_convert %r : ({t6}) -> tensor<6xi8>\n"
           f"  return %o : tensor<6xi8>\n}}")
    (got,) = _run(src, operand, source, init)
    # windows [0..2], [2..4], [4..5]+pad: the first maximum of each (GE keeps the earlier)
    want = np.full(6, init, np.int8)
    for pos, v in zip([1, 4, 4], source):
        want[pos] = _add(want[pos], _add(init, v))  # scatter(init, source) then into result
    assert got.tolist() == want.tolist()
