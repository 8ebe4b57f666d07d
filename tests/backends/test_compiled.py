"""Compile once, run many (`qcomp.compile`, `qcomp.backends.compiled`): a handle's runs
equal `qcomp.backends.run` bit for bit on both backends (and LiteRT's reference kernels,
the oracle, on lowered `.tflite` models), a second run prepares nothing (counted with
`PREPARE_HOOKS`), an unchanged module is not prepared again and a module edited in any
way (`tests/ir/module_edits.py`) is, a handle keeps its snapshot."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

import qcomp  # noqa: E402
from qcomp.backends import iree, run, xla  # noqa: E402
from qcomp.backends.compiled import PREPARE_HOOKS, cached  # noqa: E402
from qcomp.importers.tflite import import_tflite  # noqa: E402
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass  # noqa: E402
from qcomp.registry import make_context, parse_module  # noqa: E402
from tests.importers.litert_cases import CASES  # noqa: E402
from tests.importers.tflite_models import run_litert  # noqa: E402
from tests.ir.module_edits import EDITS  # noqa: E402

BACKENDS = ["numpy", "xla"]


@pytest.fixture(autouse=True)
def _skip_xla_without_jax(request):
    """The `xla` cases skip when jax cannot load (asked here, not at collection: loading
    jax costs each worker's collection a second)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "xla" and not xla.is_available():
        pytest.skip("jax/jaxlib cannot load")

MODELS = ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SOFTMAX", "MEAN"]


def lowered(model: bytes):
    ctx = make_context()
    module = parse_module(import_tflite(model), ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    return module


@pytest.fixture
def preparations():
    seen: list = []
    PREPARE_HOOKS.append(seen.append)
    yield seen
    PREPARE_HOOKS.remove(seen.append)


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", MODELS)
def test_compiled_runs_equal_backend_run_and_litert(op, backend, preparations):
    model, feeds = CASES[op](np.random.default_rng(7))
    module = lowered(model)
    want = run_litert(model, feeds)
    handle = qcomp.compile(module, backend=backend, semantics="spec")
    assert len(preparations) == 1
    for _ in range(2):
        (got,) = handle.run(feeds)
        (ref,) = run(module, feeds, backend=backend)
        assert got.error is None and ref.error is None
        for g, r, w in zip(got.results, ref.results, want, strict=True):
            assert g.dtype == r.dtype and bits(g) == bits(r)
            assert np.array_equal(g.reshape(w.shape), w)
    assert len(preparations) == 2  # the handle once, backends.run once


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_run_prepares_again_only_after_an_edit(backend, preparations):
    module = parse_module("""
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %y = stablehlo.add %x, %c : tensor<3xi32>
  return %y : tensor<3xi32>
}""")
    x = np.array([10, 20, 30], np.int32)
    assert run(module, [x], backend=backend)[0].results[0].tolist() == [11, 22, 33]
    assert run(module, [x], backend=backend)[0].results[0].tolist() == [11, 22, 33]
    assert len(preparations) == 1
    handle = qcomp.compile(module, backend=backend)
    const = next(op for op in module.walk() if op.name == "stablehlo.constant")
    other = parse_module("""
func.func @f() -> tensor<3xi32> {
  %c = stablehlo.constant dense<[5, 6, 7]> : tensor<3xi32>
  return %c : tensor<3xi32>
}""")
    const.properties["value"] = next(op for op in other.walk()
                                     if op.name == "stablehlo.constant").properties["value"]
    assert run(module, [x], backend=backend)[0].results[0].tolist() == [15, 26, 37]
    assert len(preparations) == 3
    assert handle.run([x])[0].results[0].tolist() == [11, 22, 33]  # its snapshot
    assert len(preparations) == 3


def test_numpy_plans_are_made_once(preparations):
    model, feeds = CASES["CONV_2D"](np.random.default_rng(3))
    handle = qcomp.compile(lowered(model))
    handle.run(feeds)
    plans = dict(handle.preparation.plans)
    assert len(plans) == sum(1 for f in handle.functions for _ in f.body.walk())
    handle.run(feeds)
    assert handle.preparation.plans == plans


def test_unknown_backend_is_an_error():
    module = parse_module("func.func @main() -> () {\n  return\n}")
    with pytest.raises(qcomp.backends.compiled.RunError, match="unknown backend 'tpu'"):
        qcomp.compile(module, backend="tpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_qcomp_run_samples_stacks_the_per_sample_results(tmp_path, backend):
    import io

    from qcomp.ir import print_module
    from qcomp.tools.qcomp_run import main

    model, feeds = CASES["CONV_2D"](np.random.default_rng(4))
    module = lowered(model)
    src = tmp_path / "conv.mlir"
    src.write_text(print_module(module))
    rng = np.random.default_rng(9)
    xs = rng.integers(-128, 128, (5, *feeds[0].shape)).astype(np.int8)
    np.savez(tmp_path / "samples.npz", arg0=xs)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(src), "--inputs", str(tmp_path / "samples.npz"), "--samples",
                 "--backend", backend, "--output", str(tmp_path / "out.npz")],
                stdout=out, stderr=err)
    assert (code, err.getvalue(), out.getvalue()) == (0, "", "@main: 5 samples\n")
    got = np.load(tmp_path / "out.npz")["result0"]
    want = np.stack([run_litert(model, [x])[0] for x in xs])
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("op", ["CONV_2D", "SOFTMAX"])
def test_xla_samples_run_in_rebatched_chunks(op, monkeypatch):
    """5 samples, 2 a call: chunks of 2, 2 and 1 (padded with its sample); each
    sample's result is LiteRT's for it alone, and the per-sample runs' (the handle's own
    batch-1 program on XLA)."""
    if not xla.is_available():
        pytest.skip("jax/jaxlib cannot load")
    monkeypatch.setattr(qcomp.backends.compiled, "SAMPLE_CHUNK", 2)
    model, feeds = CASES[op](np.random.default_rng(4))
    handle = qcomp.compile(lowered(model), backend="xla")
    rng = np.random.default_rng(11)
    xs = rng.integers(-128, 128, (5, *feeds[0].shape)).astype(np.int8)
    (run,), n = handle.run_samples([xs])
    assert n == 5 and run.error is None and list(handle._rebatched) == [2]
    want = np.stack([run_litert(model, [x])[0] for x in xs])
    one_by_one = np.stack([handle.run([x])[0].results[0] for x in xs])
    assert run.results[0].dtype == want.dtype and np.array_equal(run.results[0], want)
    assert np.array_equal(run.results[0], one_by_one)


def test_xla_samples_of_a_program_that_mixes_them_run_one_by_one():
    """A reshape that drops the batch dimension: `set-batch-size` refuses the program,
    so each sample runs alone (the same results either way)."""
    if not xla.is_available():
        pytest.skip("jax/jaxlib cannot load")
    module = parse_module("func.func @main(%x: tensor<1x4xi32>) -> tensor<4xi32> {\n"
                          "  %r = stablehlo.reshape %x : (tensor<1x4xi32>) -> tensor<4xi32>\n"
                          "  %y = stablehlo.add %r, %r : tensor<4xi32>\n"
                          "  return %y : tensor<4xi32>\n}\n")
    handle = qcomp.compile(module, backend="xla")
    xs = np.arange(12, dtype=np.int32).reshape(3, 1, 4)
    (run,), n = handle.run_samples([xs])
    assert n == 3 and handle._rebatched == {3: None}  # refused once, remembered
    assert np.array_equal(run.results[0], 2 * xs.reshape(3, 4))


def test_qcomp_run_samples_needs_one_sample_dimension(tmp_path):
    import io

    from qcomp.tools.qcomp_run import main

    src = tmp_path / "add.mlir"
    src.write_text("func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {\n"
                   "  %c = stablehlo.add %a, %b : tensor<2xi32>\n  return %c : tensor<2xi32>\n}\n")
    np.savez(tmp_path / "s.npz", arg0=np.zeros((3, 2), np.int32), arg1=np.zeros((4, 2), np.int32))
    out, err = io.StringIO(), io.StringIO()
    code = main([str(src), "--inputs", str(tmp_path / "s.npz"), "--samples"], stdout=out, stderr=err)
    assert code == 1  # input data that does not fit: a diagnostic about the input
    assert err.getvalue() == ("qcomp-run: error: --samples needs arrays with one leading sample "
                              "dimension of the same length, at least 1 (leading sizes: arg0: 3, "
                              "arg1: 4)\n")


@pytest.mark.parametrize("edit", EDITS)
def test_backend_run_prepares_again_after_every_kind_of_edit(edit, preparations):
    from tests.ir.module_edits import SOURCE

    module = parse_module(SOURCE)
    first = cached(module)
    assert cached(module) is first and len(preparations) == 1  # unchanged: not again
    EDITS[edit](module)
    second = cached(module)
    assert second is not first and len(preparations) == 2
    assert cached(module) is second and len(preparations) == 2


@pytest.mark.parametrize("backend", BACKENDS + (["iree"] if iree.is_available() else []))
def test_an_unchanged_module_is_prepared_once(backend, preparations):
    model, feeds = CASES["CONV_2D"](np.random.default_rng(5))
    module = lowered(model)
    want = run_litert(model, feeds)
    for _ in range(3):
        (got,) = run(module, feeds, backend=backend)
        assert got.error is None and np.array_equal(got.results[0].reshape(want[0].shape), want[0])
    assert len(preparations) == 1


def _xla_feeds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {"arg0": rng.uniform(-0.5, 0.5, (4, 8)).astype(np.float32),
            "arg1": np.array(-0.75, np.float32)}


def _same_runs(got, want) -> bool:
    return [(r.name, r.error and r.error.message, [bits(a) for a in r.results]) for r in got] == \
        [(r.name, r.error and r.error.message, [bits(a) for a in r.results]) for r in want]


XLA_EDITS = ["operand set by index", "uses replaced", "nested operand", "op moved",
             "nested op erased", "property set", "block argument erased", "results replaced"]
"""A sample of `EDITS` (each kind is seen by the check: `tests/ir/test_snapshot.py`, and
prepares again: above); an XLA compilation each."""


@pytest.mark.parametrize("backend", ["xla"])
@pytest.mark.parametrize("edit", XLA_EDITS)
def test_xla_run_after_an_edit_gives_the_edited_programs_results(edit, backend, preparations):
    """On xla `run` launches the run of the handle made before, then checks the module:
    after an edit the launched run (of the program before it) is dropped and the
    edited program's results are handed out, as a fresh `qcomp.compile` of it gives."""
    from tests.ir.module_edits import SOURCE

    module, feeds = parse_module(SOURCE), _xla_feeds()
    run(module, feeds, backend=backend)
    before = run(module, feeds, backend=backend)  # launched, checked, handed out
    assert len(preparations) == 1
    EDITS[edit](module)
    try:
        got = run(module, feeds, backend=backend)
    except Exception as e:  # noqa: BLE001 - a module the edit broke: as a fresh compile
        with pytest.raises(type(e)):
            qcomp.compile(module, backend=backend).run(feeds)
        return
    assert len(preparations) == 2
    assert _same_runs(got, qcomp.compile(module, backend=backend).run(feeds))
    assert _same_runs(run(module, feeds, backend=backend), got) and len(preparations) == 3
    if edit in ("operand set by index", "uses replaced", "nested operand"):
        assert not _same_runs(got, before)  # the edit changes the numbers


@pytest.mark.parametrize("backend", ["xla"])
def test_xla_run_waits_for_the_run_it_launched(backend, monkeypatch, preparations):
    """An unchanged module's second and third runs are the runs launched before the
    check (one execution each, not two), bit for bit the handle's."""
    from tests.ir.module_edits import SOURCE

    counts = {"launch": 0, "_execute": 0}

    def counting(name):
        real = getattr(xla.XlaFunction, name)

        def wrapper(self, *args):
            counts[name] += 1
            return real(self, *args)
        return wrapper
    for name in counts:
        monkeypatch.setattr(xla.XlaFunction, name, counting(name))
    module, feeds = parse_module(SOURCE), _xla_feeds()
    runs = [run(module, feeds, backend=backend) for _ in range(3)]
    assert counts == {"launch": 3, "_execute": 1} and len(preparations) == 1
    want = qcomp.compile(module, backend=backend).run(feeds)
    assert all(_same_runs(r, want) for r in runs)


@pytest.mark.parametrize("backend", ["xla"])
def test_xla_run_reports_bad_inputs_after_a_launch_fails(backend):
    """A launch that fails (an input missing) is not the answer: the run reports why."""
    from tests.ir.module_edits import SOURCE

    module, feeds = parse_module(SOURCE), _xla_feeds()
    run(module, feeds, backend=backend)
    with pytest.raises(qcomp.interpreter.RunError, match="inputs have no array named arg1 for @main"):
        run(module, {"arg0": feeds["arg0"]}, backend=backend)
    (r,) = run(module, {"arg0": feeds["arg0"], "arg1": np.zeros((2,), np.float32)}, backend=backend)
    assert r.error is not None and r.error.message == (
        "input 'arg1' has shape (2,), the argument needs a scalar (tensor<f32>)")
