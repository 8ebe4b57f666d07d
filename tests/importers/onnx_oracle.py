"""Running ONNX models through qcomp's import and interpreter, and comparing with an
oracle's arrays bit for bit (NaN equals NaN; sub-byte integers by value; strings as
text)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

onnx = __import__("pytest").importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

from qcomp.importers.onnx import import_bytes  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.registry import PASSES, make_context  # noqa: E402


def as_array(x) -> np.ndarray:
    return numpy_helper.to_array(x) if isinstance(x, onnx.TensorProto) else np.asarray(x)


def run_qcomp(model, inputs) -> list[np.ndarray]:
    """The model's outputs as qcomp computes them (serialized bytes -> import -> run)."""
    module = import_bytes(model.SerializeToString())
    (r,) = run(module, [as_array(x) for x in inputs])
    if r.error is not None:
        raise AssertionError(f"qcomp-run failed: {r.error}")
    return r.results


def apply_passes(module, names):
    """`module` after the passes `names` (registry names, in order), verified."""
    ctx = make_context()
    for name in names:
        PASSES[name]()().apply(ctx, module)
    module.verify()
    return module


def _normal(a: np.ndarray) -> np.ndarray:
    if a.dtype in (ml_dtypes.int4, ml_dtypes.int2):
        return a.astype(np.int8)
    if a.dtype in (ml_dtypes.uint4, ml_dtypes.uint2):
        return a.astype(np.uint8)
    if a.dtype.kind in "OUS":
        return np.array([x.decode() if isinstance(x, bytes) else str(x)
                         for x in a.reshape(-1)], object).reshape(a.shape)
    return a


def mismatch(got: np.ndarray, want) -> str | None:
    """Why `got` is not `want` bit for bit (None when it is)."""
    got, want = _normal(np.asarray(got)), _normal(as_array(want))
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"
    if want.dtype == object:
        same = np.array([a == b for a, b in zip(got.reshape(-1), want.reshape(-1))], bool)
    elif want.dtype.kind in "iub":
        same = got == want
    else:  # floats (ml_dtypes too): the bits, any NaN equals any NaN
        bits = np.dtype(f"u{want.dtype.itemsize}")
        g, w = got.astype(np.float64), want.astype(np.float64)
        same = (got.view(bits) == want.view(bits)) | (np.isnan(g) & np.isnan(w))
    if same.all():
        return None
    i = int(np.flatnonzero(~same.reshape(-1))[0])
    return (f"{int((~same).sum())} of {same.size} elements differ; first at flat index {i}: "
            f"got {got.reshape(-1)[i]!r}, want {want.reshape(-1)[i]!r}")
