"""qcomp's collectives over `interpreter.run_parallel` against XLA's own collectives:
jax.pmap over 4 CPU devices (psum, pmax, all_gather, all_to_all, ppermute,
psum_scatter), in a subprocess so that XLA_FLAGS gives it the devices. Random
integer-valued inputs, so every order of the sums is exact.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter.jax_oracle import AVAILABLE, REASON

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=REASON)

ORACLE = textwrap.dedent("""
    import os, sys
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import numpy as np, jax
    from jax import lax
    f = jax.pmap(lambda v: (
        lax.psum(v, "i"), lax.pmax(v, "i"), lax.all_gather(v, "i", axis=0, tiled=True),
        lax.all_to_all(v, "i", 0, 0, tiled=True),
        lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]),
        lax.psum_scatter(v, "i", scatter_dimension=0, tiled=True)), axis_name="i")
    for given, out in zip(sys.argv[1::2], sys.argv[2::2]):
        np.savez(out, *[np.asarray(o) for o in f(np.load(given)["x"])])
""")
"""The oracle: `python3 -c ORACLE IN OUT [IN OUT]...`, XLA's collectives on each input."""
SEEDS = range(3)

GROUP = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
T, G, S = "tensor<8x3xf32>", "tensor<32x3xf32>", "tensor<2x3xf32>"


def _body(op: str) -> str:
    return (f"^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            f"    %s = stablehlo.{op} %a, %b : tensor<f32>\n"
            f"    stablehlo.return %s : tensor<f32>")


PROGRAM = f"""
func.func @p(%x: {T}) -> ({T}, {T}, {G}, {T}, {T}, {S}) {{
  %0 = "stablehlo.all_reduce"(%x) ({{
  {_body("add")}
  }}) {{{GROUP}}} : ({T}) -> {T}
  %1 = "stablehlo.all_reduce"(%x) ({{
  {_body("maximum")}
  }}) {{{GROUP}}} : ({T}) -> {T}
  %2 = "stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, {GROUP}}} : ({T}) -> {G}
  %3 = "stablehlo.all_to_all"(%x) {{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, {GROUP}}} : ({T}) -> {T}
  %4 = "stablehlo.collective_permute"(%x) {{source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}} : ({T}) -> {T}
  %5 = "stablehlo.reduce_scatter"(%x) ({{
  {_body("add")}
  }}) {{scatter_dimension = 0 : i64, {GROUP}}} : ({T}) -> {S}
  return %0, %1, %2, %3, %4, %5 : {T}, {T}, {G}, {T}, {T}, {S}
}}
func.func @main(%a: {T}, %b: {T}, %c: {T}, %d: {T}) -> ({", ".join([f"{T}, {T}, {G}, {T}, {T}, {S}"] * 4)}) {{
  %r:24 = "interpreter.run_parallel"(%a, %b, %c, %d) {{programs = [[@p], [@p], [@p], [@p]]}} : ({T}, {T}, {T}, {T}) -> ({", ".join([f"{T}, {T}, {G}, {T}, {T}, {S}"] * 4)})
  return {", ".join(f"%r#{i}" for i in range(24))} : {", ".join([f"{T}, {T}, {G}, {T}, {T}, {S}"] * 4)}
}}"""


def _input(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-100, 100, size=(4, 8, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def xla_outputs(tmp_path_factory) -> dict[int, dict[str, np.ndarray]]:
    """XLA's results on each seed's input, from one oracle process (jax's import and the
    pmap's compile once, not once a seed)."""
    d = tmp_path_factory.mktemp("collectives")
    argv = []
    for seed in SEEDS:
        np.savez(d / f"x{seed}.npz", x=_input(seed))
        argv += [str(d / f"x{seed}.npz"), str(d / f"y{seed}.npz")]
    done = subprocess.run([sys.executable, "-c", ORACLE, *argv], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return {seed: dict(np.load(d / f"y{seed}.npz")) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_collectives_match_xla_on_four_devices(seed, xla_outputs):
    x = _input(seed)
    theirs = xla_outputs[seed]
    (r,) = run(parse_module(PROGRAM), list(x))
    assert r.error is None, r.error
    for k, ours in enumerate(r.results):  # process-major: 6 results per replica
        expected = theirs[f"arr_{k % 6}"][k // 6]
        np.testing.assert_array_equal(ours, expected, err_msg=f"replica {k // 6}, result {k % 6}")
