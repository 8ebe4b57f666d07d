"""The ONNX model zoo (tests/models/onnx/, made by tools/make_onnx_models.py) through
qcomp, measured against onnxruntime: what `tools/onnx_zoo.py` prints and
`test_onnx_zoo.py` checks.

For a model `<arch>.<mode>.onnx`: import (`qcomp-opt model.onnx`), lower with the
documented pipeline

    qcomp-opt model.onnx [--onnx-unfuse-qdq] --onnx-legalize-qdq-to-quant \\
        --onnx-legalize-to-stablehlo --stablehlo-legalize-quant-to-math

(`--onnx-unfuse-qdq` first for the QOperator, dynamic and MatMulNBits models), count
what is left (`onnx.` ops, `!quant` types), run the lowered program in qcomp's
interpreter on seeded inputs and compare with onnxruntime's unoptimized session
(`ORT_DISABLE_ALL`: node by node, as the graph says). A model's output that a
DequantizeLinear makes is compared in steps of that DequantizeLinear's scale; any other
float output by its largest absolute difference.
"""

from __future__ import annotations

import io
import re
import tempfile
import time
from pathlib import Path

import numpy as np

ZOO = Path(__file__).resolve().parent.parent / "models" / "onnx"
LOWER = ["--onnx-legalize-qdq-to-quant", "--onnx-legalize-to-stablehlo",
         "--stablehlo-legalize-quant-to-math"]
UNFUSED_FIRST = ("qop", "dyn", "nbits_qop")


def models() -> list[Path]:
    return sorted(ZOO.glob("*.onnx"))


def mode_of(path: Path) -> str:
    return path.name.split(".")[1]


def pipeline(path: Path) -> list[str]:
    return (["--onnx-unfuse-qdq"] if mode_of(path) in UNFUSED_FIRST else []) + LOWER


def qcomp_opt(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, first line of stderr, stdout) of `qcomp-opt argv`."""
    from qcomp.tools.qcomp_opt import main

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(""), out, err)
    first = (err.getvalue().strip().splitlines() or [""])[0]
    return code, first.removeprefix("qcomp-opt: error: ").removeprefix(f"{argv[0]}: "), \
        out.getvalue()


def inputs(model, seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs for `model`'s graph inputs: floats ~ N(0, 1), token ids (`ids`) in
    [0, 64), an attention mask (`mask`) of ones with the last positions zero (the same
    rule as tools/make_onnx_models.py's calibration inputs)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    inits = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        if vi.name == "ids":
            feeds[vi.name] = rng.integers(0, 64, shape).astype(np.int64)
        elif vi.name == "mask":
            m = np.ones(shape, np.int64)
            m[..., shape[-1] - int(rng.integers(0, shape[-1] // 2)):] = 0
            feeds[vi.name] = m
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def session(path: Path, optimized: bool = False):
    import onnxruntime as ort

    so = ort.SessionOptions()
    if not optimized:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def output_scales(model) -> list[float | None]:
    """Per graph output: the scale of the DequantizeLinear that makes it (per-tensor),
    else None."""
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    by_out = {o: n for n in model.graph.node for o in n.output}
    scales = []
    for vi in model.graph.output:
        n = by_out.get(vi.name)
        s = inits.get(n.input[1]) if n is not None and n.op_type == "DequantizeLinear" else None
        scales.append(float(s) if s is not None and np.size(s) == 1 else None)
    return scales


def difference(got: np.ndarray, want: np.ndarray, scale: float | None) -> float:
    """The largest difference, in output steps when `scale` is given."""
    d = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    worst = float(np.max(d, initial=0.0))
    return worst / scale if scale else worst


def lower(path: Path) -> tuple[dict, str | None]:
    """Import and lower `path`: the row's import / lowered / left cells, and the lowered
    text (None when a step fails)."""
    row: dict = {"model": path.stem}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lowered.mlir"
        code, lowering_error, _ = qcomp_opt([str(path), *pipeline(path), "-o", str(out)])
        text = out.read_text() if code == 0 else None
    if code:  # which step failed: the import alone (only now; a lowered model imported)
        code, first, _ = qcomp_opt([str(path)])
        row["import"] = "yes" if code == 0 else first
        if code == 0:
            row["lowered"] = lowering_error
        return row, None
    row["import"] = "yes"
    left = sorted(set(re.findall(r'"?(onnx\.[A-Za-z]+)"?\(', text)) - {"onnx.Constant"})
    quant = "!quant" in text
    row["lowered"] = "yes" if not left and not quant else "partly"
    row["left"] = " ".join(left + (["!quant"] if quant else [])) or "-"
    return row, text


def measure(path: Path, n: int = 4, xla: bool = False,
            lowered: tuple[dict, str | None] | None = None) -> dict:
    """The zoo table's row for `path` on `n` seeded inputs (`lowered`: `lower(path)`, when
    the caller has it)."""
    import onnx

    from qcomp.interpreter import run
    from qcomp.registry import parse_module

    row, text = lower(path) if lowered is None else (dict(lowered[0]), lowered[1])
    if text is None:
        return row
    model = onnx.load(path)
    module = parse_module(text)
    ref, fast = session(path), session(path, optimized=True)
    names = [vi.name for vi in model.graph.input
             if vi.name not in {t.name for t in model.graph.initializer}]
    scales = output_scales(model)
    fns = None
    if xla:  # compiled once; the time is per run of the compiled function
        from qcomp.backends.xla import compiled

        fns = compiled(module)
    worst, worst_xla, exact = 0.0, 0.0, 0
    t_np, t_xla, t_ref, t_fast = [], [], [], []
    for seed in range(n):
        feeds = inputs(model, seed)
        t0 = time.perf_counter()
        want = ref.run(None, feeds)
        t_ref.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fast.run(None, feeds)
        t_fast.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        [r] = run(module, [feeds[k] for k in names])
        t_np.append(time.perf_counter() - t0)
        if r.error is not None:
            row["run"] = str(r.error).splitlines()[0]
            return row
        d = [difference(g, w, s) for g, w, s in zip(r.results, want, scales, strict=True)]
        worst = max(worst, *d)
        exact += all(np.array_equal(g, w) for g, w in zip(r.results, want, strict=True))
        if fns is not None:
            t0 = time.perf_counter()
            rx = fns[0].run([feeds[k] for k in names])
            t_xla.append(time.perf_counter() - t0)
            if rx.error is not None:
                row["xla"] = str(rx.error).strip().splitlines()[0][:80]
                fns = None
                continue
            worst_xla = max(worst_xla, *(difference(g, w, s) for g, w, s in
                                         zip(rx.results, want, scales, strict=True)))
    row.update(run="yes", inputs=n, exact=exact,
               unit="steps" if all(scales) else "abs", max_diff=worst,
               numpy_ms=1e3 * min(t_np), ort_ms=1e3 * min(t_ref), ort_opt_ms=1e3 * min(t_fast))
    if fns is not None:
        row.update(xla="yes", xla_diff=worst_xla, xla_ms=1e3 * min(t_xla[1:] or t_xla))
    return row
