"""tools/bench_compile.py: the generated modules and the table (never timings)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from qcomp.registry import parse_module

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_compile", REPO / "tools" / "bench_compile.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_module_has_the_mix_and_size():
    bench = _bench()
    text = bench.generate(40)
    module = parse_module(text)
    module.verify()
    names = [op.name for op in module.walk()]
    assert bench.count_ops(module) == 42  # 9 layers of 4 ops, 2 quantize, 2 dequantize, return, func
    assert names.count("stablehlo.dot_general") == 5
    assert names.count("stablehlo.convolution") == 4
    assert names.count("stablehlo.add") == 9
    assert names.count("stablehlo.constant") == 9
    assert {"stablehlo.tanh", "stablehlo.abs", "stablehlo.multiply", "stablehlo.logistic"} <= set(names)
    # weights per-axis, written as MLIR hex strings
    assert re.search(r'dense<"0x[0-9A-F]{512}"> : tensor<16x16xi8>', text)
    assert "tensor<16x16x!quant.uniform<i8:f32:1, {" in text
    assert "tensor<3x3x8x8x!quant.uniform<i8:f32:3, {" in text


def test_table_rows_and_ratios(capsys):
    bench = _bench()
    code = bench.main(["--sizes", "20,40"])
    out = capsys.readouterr().out
    assert code in (0, 1)
    rows = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| input ops | output ops | parse s | stablehlo-legalize-quant-to-math s "
                              "| canonicalize s | cse s | passes s | verify s | print s "
                              "| passes / (parse+print) | passes / passes@22 | ops ratio |")
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| 22", "| 42"]
    assert rows[1].endswith(" | 1.0 | 1.0 |")  # the baseline against itself
    assert rows[2].endswith(" | 1.9 |")  # 42 / 22 ops
