"""`qcomp.backends.xla_clients`: a small program runs on the one-thread CPU client, a
large one on jax's; the two give the same bits; making the client leaves the calling
thread's CPUs as they were and gives the client's threads all of them (a stand-in
client, so that the process keeps one client)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from qcomp.backends import xla, xla_clients
from qcomp.interpreter import run as interpret
from qcomp.registry import parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(), reason="jax is not installed")

SMALL = """
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %z = stablehlo.exponential %y : tensor<2x4xf32>
  func.return %z : tensor<2x4xf32>
}"""


def _large(n: int) -> str:
    t = f"tensor<{n}x{n}xf32>"
    return f"""
func.func @main(%x: {t}, %w: {t}) -> {t} {{
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}
  func.return %y : {t}
}}"""


def test_work_counts_elements_and_two_per_product():
    module = parse_module(SMALL)
    # dot: 8 results x 2 x 3 products; exponential: 8; the arguments are not ops
    assert xla_clients.work(module) == 8 * 2 * 3 + 8
    assert xla_clients.work(parse_module(_large(256))) == 256 * 256 * 2 * 256


def test_small_programs_run_on_one_thread_large_ones_on_jax_client():
    (small,) = xla.compile_module(parse_module(SMALL))
    (large,) = xla.compile_module(parse_module(_large(256)))
    assert small.error is None and large.error is None
    one = xla_clients.one_thread_client(xla.load_jax().xc.make_cpu_client)
    jax_client, _ = xla.get_device("cpu")
    assert small.one_thread == (one is not None)
    assert not large.one_thread
    if one is not None:
        assert small.executable.client is one
    assert large.executable.client is jax_client


def test_one_thread_client_gives_the_same_bits():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    module = parse_module(SMALL)
    (fn,) = xla.compile_module(module)
    (on_jax_client,) = xla.compile_module(module)
    on_jax_client.one_thread = False
    on_jax_client.executable = xla.compile_text(on_jax_client.text)
    a, b = fn.run([x, w]), on_jax_client.run([x, w])
    assert a.error is None and b.error is None
    assert a.results[0].tobytes() == b.results[0].tobytes()
    (want,) = interpret(module, [x, w])
    assert np.allclose(a.results[0], want.results[0], rtol=1e-6)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux and two CPUs")
def test_the_client_is_made_on_one_cpu_and_every_thread_gets_them_back():
    mask = os.sched_getaffinity(0)
    seen: dict[str, set[int]] = {}
    started = threading.Event()
    stop = threading.Event()

    def worker() -> None:
        seen["pool"] = os.sched_getaffinity(0)  # inherited from the maker's thread
        started.set()
        stop.wait()

    def make_cpu_client(asynchronous: bool) -> str:
        seen["maker"] = os.sched_getaffinity(0)
        threading.Thread(target=worker, daemon=True).start()
        started.wait()
        return "client"

    tasks = set(os.listdir("/proc/self/task"))
    assert xla_clients.one_thread_client.__wrapped__(make_cpu_client) == "client"
    (pool,) = (int(t) for t in set(os.listdir("/proc/self/task")) - tasks)
    assert seen == {"maker": {min(mask)}, "pool": {min(mask)}}
    assert os.sched_getaffinity(0) == mask and os.sched_getaffinity(pool) == mask
    stop.set()
