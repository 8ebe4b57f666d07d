"""Splat constants held as one element (`qcomp.ir.splat`, issue 16 "Unbounded memory").

`dense<1.0> : tensor<100000x100000xf32>` (40 GB if stored element by element) must
parse, verify, print (byte for byte as upstream MLIR prints it: jaxlib's MLIR is the
oracle) and go through the passes in little memory; qcomp-run refuses it under
--max-memory with its usual diagnostic. Memory is measured in a child process
(`ru_maxrss`), so each test fails when a splat is materialised. The held form must
also give the same text and values as the materialised form (xDSL's `from_list` and
NumPy are the oracles).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IntegerType,
    Signedness,
    TensorType,
    f32,
    f64,
    i1,
    i8,
    i64,
)

from qcomp.ir import splat
from qcomp.tools.qcomp_opt import main as opt_main
from tests.sampling import every

REPO = Path(__file__).resolve().parents[2]
HUGE = "100000x100000"
MAX_RSS_MB = 500
"""A generous bound: materialising the smallest splat here (i1) takes 10 GB."""

_CHILD = """
import io, json, re, resource, sys
from qcomp.tools import qcomp_opt, qcomp_run

def peak_kb():
    try:  # this process's own peak (ru_maxrss keeps the forking parent's peak across exec)
        with open("/proc/self/status") as f:
            return int(re.search(r"VmHWM:\\s*(\\d+)", f.read()).group(1))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

results = []
for tool, args, stdin in json.loads(sys.stdin.read()):
    try:  # the peak from here: the resident size now (Linux); else the process's peak
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    out, err = io.StringIO(), io.StringIO()
    code = {"qcomp_opt": qcomp_opt, "qcomp_run": qcomp_run}[tool].main(
        args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    results.append([code, out.getvalue(), err.getvalue(), peak_kb() / 1024])
print(json.dumps(results))
"""


def _tools(runs: list[tuple[str, list[str], str]]) -> list[tuple[int, str, str, float]]:
    """(exit code, stdout, stderr, peak resident MB) of each (qcomp_opt or qcomp_run, its
    arguments, its stdin) run, one after the other in one child process. A run's peak is
    its process's resident size when it starts (what earlier runs left) plus what it
    grows by: never below its own peak."""
    r = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(runs),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    return [tuple(x) for x in json.loads(r.stdout)]


def _tool(tool: str, args: list[str], stdin: str = "") -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, peak resident MB) of qcomp_opt / qcomp_run in a child."""
    [result] = _tools([(tool, args, stdin)])
    return result


CONSTANTS = [
    ("dense<1.0>", "f32"), ("dense<-0.0>", "f64"), ("dense<0x7FC00001>", "f32"),
    ("dense<2.5>", "bf16"), ("dense<true>", "i1"), ("dense<200>", "ui8"), ("dense<-3>", "i4"),
    ('dense<"0x0000C03F">', "f32"), ("dense<(1.0, -2.0)>", "complex<f32>"),
    ("dense<(0x7FF0000000000001, 2.0)>", "complex<f64>"), ("dense<7>", "i64"),
]


def _program(shape: str) -> str:
    types = [f"tensor<{shape}x{e}>" for _, e in CONSTANTS]
    body = "\n".join(f"  %{k} = stablehlo.constant {d} : {t}"
                     for k, ((d, _), t) in enumerate(zip(CONSTANTS, types)))
    names = ", ".join(f"%{k}" for k in range(len(CONSTANTS)))
    return (f"func.func @main() -> ({', '.join(types)}) {{\n{body}\n"
            f"  return {names} : {', '.join(types)}\n}}\n")


def test_huge_splats_print_as_upstream_in_little_memory():
    from tests.ir.test_print_against_upstream import _jaxlib

    text = _program(HUGE)
    first, second = _tools([("qcomp_opt", ["-"], text),
                            ("qcomp_opt", ["-", "--mlir-print-op-generic"], text)])
    code, out, err, rss = first
    assert code == 0, err
    assert rss < MAX_RSS_MB, f"qcomp-opt took {rss:.0f} MB"
    code, generic, err, rss = second
    assert code == 0 and rss < MAX_RSS_MB, err
    ctx, ir = _jaxlib()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        assert out == module.operation.get_asm() + "\n"
        assert generic == module.operation.get_asm(print_generic_op_form=True) + "\n"
    # and back: the printed text reads as the same program
    code, again, err, rss = _tool("qcomp_opt", ["-"], generic)
    assert (code, again) == (0, out), err


def test_held_splats_print_as_materialised_ones():
    """The held form prints exactly as xDSL's full storage of the same values does."""
    small, big = io.StringIO(), io.StringIO()
    assert opt_main(["-"], stdin=io.StringIO(_program("2x3")), stdout=small) == 0
    assert opt_main(["-"], stdin=io.StringIO(_program(HUGE)), stdout=big) == 0
    assert big.getvalue() == small.getvalue().replace("2x3x", f"{HUGE}x")


QUANTIZED = f"""
!q = !quant.uniform<i8:f32, 5.000000e-01:3>
!u = !quant.uniform<u8:f32, 2.500000e-01:128>
func.func @add(%x: tensor<{HUGE}x!q>) -> tensor<{HUGE}x!q> {{
  %c = stablehlo.constant() <{{value = dense<7> : tensor<{HUGE}xi8>}}> : () -> tensor<{HUGE}x!q>
  %0 = stablehlo.add %x, %c : tensor<{HUGE}x!q>
  return %0 : tensor<{HUGE}x!q>
}}
func.func @unsigned() -> tensor<{HUGE}xf32> {{
  %c = stablehlo.constant() <{{value = dense<200> : tensor<{HUGE}xui8>}}> : () -> tensor<{HUGE}x!u>
  %0 = stablehlo.uniform_dequantize %c : (tensor<{HUGE}x!u>) -> tensor<{HUGE}xf32>
  return %0 : tensor<{HUGE}xf32>
}}
func.func @dot(%x: tensor<1x100000xf32>) -> tensor<1x100000xf32> {{
  %w = stablehlo.constant() <{{value = dense<7> : tensor<{HUGE}xi8>}}> : () -> tensor<{HUGE}x!quant.uniform<i8:f32, 5.000000e-01>>
  %q = stablehlo.uniform_quantize %x : (tensor<1x100000xf32>) -> tensor<1x100000x!quant.uniform<i8:f32, 2.500000e-01:1>>
  %0 = stablehlo.dot_general %q, %w, contracting_dims = [1] x [0] : (tensor<1x100000x!quant.uniform<i8:f32, 2.500000e-01:1>>, tensor<{HUGE}x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1x100000x!quant.uniform<i32:f32, 1.250000e-01>>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<1x100000x!quant.uniform<i32:f32, 1.250000e-01>>) -> tensor<1x100000xf32>
  return %1 : tensor<1x100000xf32>
}}
"""


PIPELINES = [
    "stablehlo-legalize-quant-to-math,canonicalize,cse",
    "stablehlo-legalize-quant-to-math{rescale=stablehlo}",
    "stablehlo-legalize-quant-to-int",
    "stablehlo-quant-legalize-to-tosa-rescale,tosa-rescale-legalize-to-stablehlo",
    "stablehlo-legalize-quantized-op-to-qdq,canonicalize",
]


@pytest.fixture(scope="module")
def through_passes() -> dict[str, tuple[int, str, str, float]]:
    """Each of PIPELINES run on QUANTIZED: one child process for all (its start-up and
    imports once, not once a pipeline)."""
    runs = [("qcomp_opt", ["-", f"--pass-pipeline=builtin.module({p})"], QUANTIZED)
            for p in PIPELINES]
    return dict(zip(PIPELINES, _tools(runs), strict=True))


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_huge_quantized_splats_through_passes(pipeline: str, through_passes):
    code, out, err, rss = through_passes[pipeline]
    assert code == 0, err
    assert rss < MAX_RSS_MB, f"{pipeline} took {rss:.0f} MB"
    assert f"dense<7> : tensor<{HUGE}xi8>" in out  # still one element, still printed so
    if "quant-to-math" in pipeline:
        # the dot's zero-point term, folded: z_l * sum_k w = 1 * 7 * 100000 per column
        assert re.search(r"dense<-?700000> : tensor<100000xi32>", out)
    if "rescale=stablehlo" in pipeline:  # u8 storage as signless i8 (upstream): 200 - 256
        assert f"dense<-56> : tensor<{HUGE}xi8>" in out


def test_qcomp_run_refuses_a_huge_splat_under_max_memory(tmp_path: Path):
    f = tmp_path / "huge.mlir"
    f.write_text(f"func.func @main() -> tensor<{HUGE}xf32> {{\n"
                 f"  %0 = stablehlo.constant dense<1.0> : tensor<{HUGE}xf32>\n"
                 f"  return %0 : tensor<{HUGE}xf32>\n}}\n")
    g = tmp_path / "arg.mlir"
    g.write_text(f"func.func @main(%a: tensor<{HUGE}xf32>) -> tensor<{HUGE}xf32> {{\n"
                 f"  return %a : tensor<{HUGE}xf32>\n}}\n")
    constant, argument = _tools([
        ("qcomp_run", [str(f)], ""),
        ("qcomp_run", [str(g), f"--args=[dense<1.0> : tensor<{HUGE}xf32>]"], "")])
    code, out, err, rss = constant
    # 10^10 f32 elements: 37.3 GiB
    assert (code, err.splitlines()[0]) == (1, (
        f"{f}:2:8: error: 'stablehlo.constant' would need about 37.3 GiB, over the memory "
        "limit of 4.0 GiB (--max-memory)")), err
    assert rss < MAX_RSS_MB
    code, _, err, rss = argument
    assert (code, err) == (1, (
        f"qcomp-run: error: --args: a constant of tensor<{HUGE}xf32> would need about "
        "37.3 GiB, over the memory limit of 4.0 GiB (--max-memory)\n"))
    assert rss < MAX_RSS_MB


def test_a_held_splat_runs_like_numpy():
    """200x1000 f32 (800 KB) is held as one element; the interpreter's values are NumPy's."""
    from qcomp.interpreter import run
    from qcomp.registry import parse_module

    text = ("func.func @main(%x: tensor<200x1000xf32>) -> tensor<200x1000xf32> {\n"
            "  %c = stablehlo.constant dense<1.5> : tensor<200x1000xf32>\n"
            "  %0 = stablehlo.add %x, %c : tensor<200x1000xf32>\n"
            "  return %0 : tensor<200x1000xf32>\n}\n")
    module = parse_module(text)
    const = next(op for op in module.walk() if op.name == "stablehlo.constant")
    assert len(const.value.data.data) == 4  # held
    x = np.random.default_rng(0).standard_normal((200, 1000)).astype(np.float32)
    (r,) = run(module, [x])
    np.testing.assert_array_equal(r.results[0], x + np.float32(1.5))


ELEMENTS = [(f32, 1.25), (f64, -0.0), (BFloat16Type(), 3.0), (i1, 1), (i8, -7),
            (IntegerType(8, Signedness.UNSIGNED), 200), (i64, -(2 ** 63)),
            (ComplexType(f32), (1.0, -2.0))]


@pytest.mark.parametrize("element,value", ELEMENTS)
def test_splat_attr_is_xdsls_from_list(element, value, monkeypatch):
    """Small: the very attribute xDSL builds; held: the same values, one element stored."""
    t = TensorType(element, [3, 4])
    full = DenseIntOrFPElementsAttr.from_list(t, [value])
    assert splat.splat_attr(t, value) == full
    monkeypatch.setattr(splat, "SPLAT_BYTES", 0)
    held = splat.splat_attr(t, value)
    assert len(held.data.data) == element.compile_time_size
    assert splat.is_held_splat(held) and not splat.is_held_splat(full)
    assert tuple(splat.dense_values(held)) == full.get_values()
    assert list(splat.iter_values(held)) == list(full.iter_values())
    assert splat.splat_value(held) == full.get_values()[0]
    assert list(splat.dense_values(held)[1:5]) == [full.get_values()[0]] * 4


def test_is_splat_array_compares_bits():
    assert splat.is_splat_array(np.broadcast_to(np.float32(2), (1000, 1000)))
    assert splat.is_splat_array(np.full((3, 3), -1, np.int8))
    assert not splat.is_splat_array(np.array([0.0, -0.0]))  # equal, not the same bits
    assert splat.is_splat_array(np.array([np.nan, np.nan]))
    assert not splat.is_splat_array(np.array([7]))  # one element is no splat


def _lit_chunks(pattern: str) -> list[tuple[str, str, list[str]]]:
    """(name, chunk, qcomp-opt flags) of the lit inputs with splat constants; the pass
    of a tests/lit/passes/<pass>/ file is run on it."""
    out = []
    for f in sorted((REPO / "tests" / "lit").glob(pattern)):
        flags = []
        if f.parts[-3] == "passes" and f.parent.name != "stablehlo-lower-quant":
            flags = [f"--{f.parent.name}"]
        for k, chunk in enumerate(f.read_text().split("\n// -----\n")):
            if re.search(r"dense<[^\[\"]", chunk):
                out.append((f"{f.relative_to(REPO)}#{k}", chunk, flags))
    return out


def test_held_and_stored_splats_agree_on_lit_inputs(monkeypatch):
    """Every splat of the lit inputs held as one element (SPLAT_BYTES = 0) prints, verifies
    and goes through its pass exactly as when stored element by element."""
    chunks = _lit_chunks("passes/*/*.mlir") + _lit_chunks("dialects/**/*.mlir")
    assert len(chunks) > 100
    chunks = every(chunks, 3)  # CI: one chunk in three (QCOMP_FULL=1: all)

    def opt(text: str, *flags: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = opt_main(["-", *flags], stdin=io.StringIO(text), stdout=out, stderr=err)
        return code, out.getvalue(), err.getvalue()

    def run_all():
        results = []
        for name, chunk, flags in chunks:
            # the pass, printed generic (splats built by the pass or its printer: `pad =
            # [[1, 1]]` is `padding = dense<1>`), read back and printed
            code, generic, err = opt(chunk, *flags, "--mlir-print-op-generic")
            results.append((name, code, opt(generic) if code == 0 else err))
        return results

    stored = run_all()
    monkeypatch.setattr(splat, "SPLAT_BYTES", 0)
    held = run_all()
    differ = [f"{a[0]}:\n{a[1:]}\n---\n{b[1:]}" for a, b in zip(stored, held) if a != b]
    assert not differ, f"{len(differ)} chunks differ; first:\n" + differ[0][:3000]
