"""The rowwise kernels' two backends: numba (the `fast` extra) when installed, else their
NumPy twins; numba is imported only when a kernel first runs (the bytes of both are
checked against torch in tests/quant/test_rowwise.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qcomp.quant import rowwise as rw

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _reset():
    yield
    rw.set_kernel_backend(None)


def _python(code: str, **env: str) -> str:
    full = {**os.environ, "PYTHONPATH": str(REPO), **env}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_numba_is_not_imported_until_a_kernel_runs():
    out = _python(
        "import sys\n"
        "import qcomp.dialects.rowwise, qcomp.interpreter.rowwise_functions\n"
        "import qcomp.passes.rowwise_legalize_to_stablehlo, qcomp.quant.rowwise_bags\n"
        "import qcomp.quant.rowwise_rand\n"
        "print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))\n")
    assert out == "[]"


def test_the_numpy_kernels_need_no_numba():
    """With QCOMP_ROWWISE_KERNELS=numpy a whole program runs without importing numba."""
    out = _python(
        "import sys, numpy as np\n"
        "from qcomp.quant import rowwise as rw, rowwise_bags as rb, rowwise_rand as rr\n"
        "w = np.arange(24, dtype=np.float32).reshape(3, 8)\n"
        "q = rw.float_to_fused_nbit(w, 4)\n"
        "rw.fused_nbit_to_float(q, 4); rr.fused_rand_to_float(rr.float_to_fused_rand(w, 2))\n"
        "rb.sparse_lengths(rw.float_to_fused_8bit(w), np.array([0, 2]), np.array([2]), 8)\n"
        "print(rw.kernel_backend(), 'numba' in sys.modules, q[0, :4].tolist())\n",
        QCOMP_ROWWISE_KERNELS="numpy")
    assert out == "numpy False [32, 100, 185, 253]"


def test_without_numba_the_default_is_numpy(monkeypatch):
    monkeypatch.setattr(rw, "numba_available", lambda: False)
    monkeypatch.delenv(rw.KERNELS_ENV, raising=False)
    assert rw.kernel_backend() == "numpy"
    assert rw.kernel("quantize_8bit").__module__ == "qcomp.quant.rowwise_numpy"
    monkeypatch.setenv(rw.KERNELS_ENV, "numba")
    with pytest.raises(rw.RowwiseError, match=r"need numba and llvmlite \(pip install 'qcomp\[fast\]'\)"):
        rw.kernel_backend()


def test_bad_backend_names():
    with pytest.raises(rw.RowwiseError, match="rowwise kernels are numba, numpy or auto, got 'c'"):
        rw.set_kernel_backend("c")
    os.environ[rw.KERNELS_ENV] = "fortran"
    try:
        with pytest.raises(rw.RowwiseError, match="QCOMP_ROWWISE_KERNELS must be numba, numpy or "
                                                 "auto, got 'fortran'"):
            rw.kernel_backend()
    finally:
        del os.environ[rw.KERNELS_ENV]


def test_both_backends_give_the_same_bytes_on_every_format():
    """The formats without a torch oracle (fake, random) and the extremes, numba against
    NumPy (skipped without numba)."""
    if not rw.numba_available():
        pytest.skip("numba is not installed (pip install -e '.[fast]')")
    from qcomp.quant import rowwise_rand as rr
    from tests.quant.rowwise_tables import KINDS, nan_table, table

    rng = np.random.default_rng(11)
    tables = [table(rng, k, 9, 37) for k in KINDS] + [nan_table(rng, 9, 37)]
    outs = {}
    for backend in ("numba", "numpy"):
        rw.set_kernel_backend(backend)
        res = []
        for x in tables:
            with np.errstate(all="ignore"):
                res += [*rw.fbgemm_min_max(x), *rw.first_min_max(x),
                        rw.float_to_fused_nbit_fake(x, 4), rw.float_to_fused_nbit_fake(x, 2)]
                for bits in (1, 2, 4, 8):
                    r = rr.float_to_fused_rand(x, bits, seed=5)
                    res += [r, rr.fused_rand_to_float(r),
                            rr.float_to_fused_rand(x, bits, random=False)]
        outs[backend] = [a.tobytes() for a in res]
    assert outs["numba"] == outs["numpy"]
