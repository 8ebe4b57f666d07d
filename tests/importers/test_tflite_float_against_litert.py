"""TFLite's math operators on float / int32 tensors (and the quantized SQRT and LOG),
and its index and logical operators (REDUCE_ANY / ALL, CUMSUM, RANGE, SCATTER_ND),
against LiteRT's kernels: imported, lowered with `rescale=fixed-point`, run by qcomp's
interpreter. Integer results and the correctly rounded float operations are bit for
bit; exp, log, sin, cos, pow within `ULPS` (the C library's functions in LiteRT, NumPy's
in qcomp). CI runs SEEDS seeds per case; `python3 tools/litert_differential.py` 200."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from tests.importers.litert_cases_float import CASES as FLOAT
from tests.importers.litert_cases_float import ULPS
from tests.importers.litert_cases_index import CASES as INDEX
from tests.importers.test_tflite_against_litert import qcomp_run
from tests.importers.tflite_models import run_litert

CASES = {**FLOAT, **INDEX}
SEEDS = int(os.environ.get("QCOMP_LITERT_SEEDS", "3"))


def ulps(got: np.ndarray, want: np.ndarray) -> int:
    """The largest distance in f32 units in the last place (NaNs of any sign / payload
    equal, a NaN against a number: 2^32)."""
    g = np.asarray(got, np.float32).reshape(want.shape)
    both = np.isnan(g) & np.isnan(want)
    if np.any(np.isnan(g) != np.isnan(want)):
        return 1 << 32

    def ordered(a):
        i = a.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    d = np.abs(ordered(g) - ordered(want))
    return int(np.max(np.where(both, 0, d), initial=0))


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_math_operators_against_litert(case, seed):
    model, feeds, resolver = CASES[case](np.random.default_rng(seed))
    want = run_litert(model, feeds, resolver)
    got = qcomp_run(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w.dtype.kind == "f":
            d = ulps(g, w)
            assert d <= ULPS.get(case, 0), f"{case} seed {seed}: {d} ulp from LiteRT"
        else:
            np.testing.assert_array_equal(np.asarray(g).reshape(w.shape), w,
                                          err_msg=f"{case} seed {seed}")
