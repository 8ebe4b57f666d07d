"""`format_float` against MLIR's own printer (the MLIR in jaxlib): random values of every
float kind, printed in a dense attribute by MLIR and by qcomp, must be the same text."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from qcomp.ir.float_text import format_float
from tests.lazy import importorskip

ir = importorskip("jaxlib.mlir.ir", reason="jaxlib (MLIR's printer) not installed")
jmlir = importorskip("jax._src.interpreters.mlir", reason="jaxlib not installed")

KINDS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}


def _values(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
    raw = rng.integers(0, 2**bits - 1, size=n, dtype=np.uint64, endpoint=True)
    dt = KINDS[kind]
    udt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    vals = raw.astype(udt).view(dt)
    decimals = np.array([0.1, 0.998, 3.14159, 1e-3, 2.5, 1e7, 123456.0, 5e-8], dtype=np.float64)
    with np.errstate(over="ignore"):
        return np.concatenate([vals, decimals.astype(dt)])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_format_float_matches_mlir(kind):
    vals = _values(kind, 300, seed=7)
    ours = [format_float(float(v), kind) for v in vals]
    # MLIR reads hex bit patterns exactly, so feed it the bits and let it print
    width = {"f16": 4, "bf16": 4, "f32": 8, "f64": 16}[kind]
    udt = {4: np.uint16, 8: np.uint32, 16: np.uint64}[width]
    hexes = [f"0x{int(b):0{width}X}" for b in vals.view(udt)]
    theirs: list[str] = []
    ctx = jmlir.make_ir_context()
    with ctx, ir.Location.unknown():
        for i in range(0, len(hexes), 100):  # MLIR prints more than 100 elements as hex
            chunk = hexes[i:i + 100]
            text = str(ir.Attribute.parse(f"dense<[{', '.join(chunk)}]> : tensor<{len(chunk)}x{kind}>"))
            body = text[text.index("[") + 1:text.rindex("]")]
            theirs += [t.strip() for t in body.split(",")]
    assert len(theirs) == len(ours)
    mismatches = [(h, o, t) for h, o, t in zip(hexes, ours, theirs) if o != t]
    assert not mismatches, mismatches[:10]
