"""Start-up cost: which modules `qcomp-opt x.mlir` and `qcomp-run x.mlir` import.

Each tool runs on `examples/quantized_add.mlir` in a fresh interpreter (a subprocess:
this test process has imported everything already), which then prints its
`sys.modules`. The heavy dependencies load only for the work that needs them: numba /
llvmlite for a rowwise kernel, onnx for `.onnx`, ai_edge_litert for `.tflite`, jax for
`--backend xla`, torch never; xDSL's interpreters package (its RISC-V interpreter)
never; a pass's module only when the pass runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sampling import FULL

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "quantized_add.mlir")
INPUTS = ["--input=4xf32=1,2.5,-3,0.2", "--input=4xf32=0.5,-1,7.25,2"]

DRIVER = """
import contextlib, io, json, sys
tool, argv = sys.argv[1], sys.argv[2:]
if tool == "qcomp-opt":
    from qcomp.tools.qcomp_opt import main
else:
    from qcomp.tools.qcomp_run import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(argv)
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""

NEVER = ("numba", "llvmlite", "onnx", "onnxruntime", "ai_edge_litert", "jax", "jaxlib",
         "torch", "scipy", "xdsl.interpreters", "qcomp.importers.onnx",
         "qcomp.importers.tflite", "qcomp.quant.rowwise", "qcomp.dialects.rowwise",
         "qcomp.dialects.onnx", "qcomp.dialects.tosa", "qcomp.backends")
"""Modules (and their submodules) that neither tool imports for this program."""


def _modules(tool: str, *args: str, env: dict[str, str] | None = None
             ) -> tuple[set[str], str]:
    proc = subprocess.run([sys.executable, "-c", DRIVER, tool, *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT,
                          env=None if env is None else {**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    return set(report["modules"]), report["out"]


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


def _heavy(modules: set[str], names=NEVER) -> list[str]:
    return [name for name in names if _loaded(modules, name)]


def test_qcomp_opt_imports():
    modules, out = _modules("qcomp-opt", EXAMPLE)
    assert "stablehlo.add" in out
    assert _heavy(modules) == []
    assert _heavy(modules, ("qcomp.interpreter", "qcomp.dialects.chlo", "xdsl.dialects.test")) == []
    # xDSL's pass machinery and pipeline parser load with a pass
    assert _heavy(modules, ("xdsl.passes", "xdsl.utils.arg_spec")) == []
    # narrow float types and the op attributes load with a program that names them
    assert _heavy(modules, ("ml_dtypes", "qcomp.quant.float_storage",
                            "qcomp.dialects.stablehlo.op_attrs")) == []
    # no pass module (the shared utils aside): none runs
    assert [m for m in modules if m.startswith("qcomp.passes.")
            and not m.startswith("qcomp.passes.utils")] == []


def test_qcomp_opt_imports_the_pass_it_runs():
    modules, out = _modules("qcomp-opt", EXAMPLE, "--stablehlo-legalize-quant-to-math")
    assert "!quant" not in out
    assert _heavy(modules) == []
    passes = {m.split(".")[2] for m in modules if m.startswith("qcomp.passes.")} - {"utils"}
    assert passes == {"stablehlo_legalize_quant_to_math", "quant_to_math"}


def test_qcomp_run_imports():
    modules, out = _modules("qcomp-run", EXAMPLE, *INPUTS)
    assert out == "@main result[0]: 4xf32=[1.5 1.5 4.5 2.25]\n"
    assert _heavy(modules) == []
    # the interpreter functions of the program's dialects only (stablehlo, func)
    assert not _loaded(modules, "qcomp.interpreter.chlo_functions")
    assert not _loaded(modules, "qcomp.interpreter.onnx_functions")
    assert _loaded(modules, "qcomp.interpreter.stablehlo_functions")
    # of StableHLO's, those of the modules defining its ops (elementwise, binary): no
    # control, scatter, dynamic, linalg, random or collective functions nor their ops;
    # no narrow float type, so no ml_dtypes
    assert _heavy(modules, (*SPLIT_FUNCTIONS, *SPLIT_OPS, "ml_dtypes")) == []
    # no check, probe or print op: neither dialect nor their functions; no pass: no
    # pass machinery; one run of each block: no straight-line programs
    assert _heavy(modules, ("qcomp.dialects.check", "qcomp.dialects.interpreter",
                            "qcomp.interpreter.check_functions", "qcomp.interpreter.probe_functions",
                            "qcomp.interpreter.process_grid", "qcomp.interpreter.straight_line",
                            "qcomp.interpreter.blockwise", "xdsl.passes", "qcomp.pipeline")) == []


SPLIT_FUNCTIONS = tuple(f"qcomp.interpreter.{m}" for m in (
    "stablehlo_control_functions", "stablehlo_scatter_functions", "dynamic_functions",
    "linalg_functions", "random_functions", "collective_functions"))
SPLIT_OPS = tuple(f"qcomp.dialects.stablehlo.{m}" for m in (
    "control", "scatter", "sort", "dynamic", "complex", "linalg", "collectives", "op_attrs"))


@pytest.mark.parametrize("dialect, module", [
    ("rowwise", "qcomp.interpreter.rowwise_functions"),
    ("chlo", "qcomp.interpreter.chlo_functions"),
    ("tosa", "qcomp.interpreter.tosa_functions"),
])
def test_interpreter_functions_load_with_their_dialect(dialect, module, tmp_path):
    """The interpreter functions of a dialect come with its ops (the other side of
    `test_qcomp_run_imports`: the test can see a module load)."""
    programs = {
        "rowwise": "%0 = rowwise.float_to_fused_8bit %a : tensor<2x4xf32> -> tensor<2x12xui8>",
        "chlo": "%0 = chlo.erf %a : tensor<2x4xf32> -> tensor<2x4xf32>",
        "tosa": '%0 = "tosa.abs"(%a) : (tensor<2x4xf32>) -> tensor<2x4xf32>',
    }
    result = programs[dialect].split(" -> ")[-1]
    text = (f"func.func @main(%a: tensor<2x4xf32>) -> {result} {{\n  {programs[dialect]}\n"
            f"  return %0 : {result}\n}}\n")
    path = tmp_path / f"{dialect}.mlir"
    path.write_text(text)
    # in CI the rowwise kernel runs as its NumPy loop: numba's import and (cache cold) its
    # compile of the kernel are no part of what is checked (tests.sampling.rowwise_numpy_loops)
    env = {"QCOMP_ROWWISE_KERNELS": "numpy"} if dialect == "rowwise" and not FULL else None
    modules, _ = _modules("qcomp-run", str(path), "--input=2x4xf32=1", env=env)
    assert _loaded(modules, module)


@pytest.mark.parametrize("op, result, loaded", [
    ("stablehlo.reverse %a, dims = [1] : tensor<2x4xf32>", "tensor<2x4xf32>",
     ("qcomp.interpreter.linalg_functions", "qcomp.interpreter.random_functions")),
    ("stablehlo.convert %a : (tensor<2x4xf32>) -> tensor<2x4xbf16>", "tensor<2x4xbf16>",
     ("ml_dtypes",)),
])
def test_stablehlo_functions_and_ml_dtypes_load_with_their_ops(op, result, loaded, tmp_path):
    """The other side of `test_qcomp_run_imports`' StableHLO cut: the functions of an
    op's module load with it (reverse: linalg.py, whose rng ops the random functions
    run), ml_dtypes with a narrow float type."""
    path = tmp_path / "p.mlir"
    path.write_text(f"func.func @main(%a: tensor<2x4xf32>) -> {result} {{\n  %0 = {op}\n"
                    f"  return %0 : {result}\n}}\n")
    modules, out = _modules("qcomp-run", str(path), "--input=2x4xf32=1,2,3,4,5,6,7,8")
    assert out.startswith("@main result[0]: 2x4x")
    assert _heavy(modules, loaded) == list(loaded)
