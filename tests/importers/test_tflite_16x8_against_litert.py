"""16x8 mode (int16 activations, int8 weights, int64 bias) against LiteRT's reference
kernels, bit for bit: random tiny models of each operator (`litert_cases_16x8`), run by
LiteRT's `BUILTIN_REF` interpreter and by qcomp (imported, lowered with
`stablehlo-legalize-quant-to-math{rescale=fixed-point}`, run by qcomp's interpreter).
CI runs SEEDS seeds per op; `python3 tools/litert_differential.py` runs 200."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from tests.importers.litert_cases_16x8 import CASES  # noqa: E402
from tests.importers.test_tflite_against_litert import qcomp_run, steps  # noqa: E402
from tests.importers.tflite_models import run_litert  # noqa: E402

SEEDS = int(os.environ.get("QCOMP_LITERT_SEEDS", "3"))


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("op", sorted(CASES))
def test_16x8_reference_kernels_bit_for_bit(op, seed):
    model, feeds = CASES[op](np.random.default_rng(seed))
    want = run_litert(model, feeds, "BUILTIN_REF")
    got = qcomp_run(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.int16
        d = steps(g, w)
        assert d == 0, f"{op} 16x8 seed {seed}: {d} steps from LiteRT's reference kernel"
