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


def _clock(parse: float, each_pass: float, verify: float, print_: float):
    """A stand-in for bench_compile._timed: runs the step, reports a fixed time for it."""
    def timed(fn):
        code = getattr(fn, "__code__", None)
        names = code.co_names if code is not None else ()
        t = (parse if "parse_module" in names else print_ if "print_module" in names
             else each_pass if "apply" in names else verify)
        return fn(), t

    return timed


def test_table_rows_and_ratios(capsys, monkeypatch):
    bench = _bench()
    # three passes of 0.5 s against parse + print of 2 s: within 2 x (parse + print)
    monkeypatch.setattr(bench, "_timed", _clock(parse=1.0, each_pass=0.5, verify=0.1, print_=1.0))
    code = bench.main(["--sizes", "20,40"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.rstrip().endswith("targets met") and "target missed" not in out
    rows = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| input ops | output ops | parse s | stablehlo-legalize-quant-to-math s "
                              "| canonicalize s | cse s | passes s | verify s | print s "
                              "| passes / (parse+print) | passes / passes@22 | ops ratio |")
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| 22", "| 42"]
    assert rows[1].endswith(" | 1.0 | 1.0 |")  # the baseline against itself
    assert rows[2].endswith(" | 1.9 |")  # 42 / 22 ops
    assert all(" | 1.00 | 0.50 | 0.50 | 0.50 | 1.50 | 0.10 | 1.00 | 0.75 | " in r for r in rows[1:])


def test_slow_passes_miss_the_target(capsys, monkeypatch):
    bench = _bench()
    # three passes of 1.5 s: 4.5 s > 2 x (0.5 + 1.5)
    monkeypatch.setattr(bench, "_timed", _clock(parse=0.5, each_pass=1.5, verify=0.1, print_=1.5))
    code = bench.main(["--sizes", "20"])
    out = capsys.readouterr().out
    assert code == 1
    assert "target missed: 22 ops, passes 4.50 s > 2 x (parse + print)" in out
    assert out.rstrip().endswith("targets missed")


def _results(pass_seconds: dict[int, float]):
    """A stand-in for bench_compile.measure: `pass_seconds[n]` for the n-op module, parse
    and print slow enough that only the scaling target can be missed."""
    def measure(n: int, profile: bool = False) -> dict:
        return {"ops": n, "out_ops": n, "chars": 0, "parse": 1000.0,
                "passes": [("p", pass_seconds[n])], "verify": 0.0, "print": 1000.0}

    return measure


def test_scaling_target(capsys, monkeypatch):
    bench = _bench()
    # 50x the ops: up to 55x the pass time is linear enough
    monkeypatch.setattr(bench, "measure", _results({1000: 1.0, 50000: 55.0}))
    assert bench.main(["--sizes", "1000,50000"]) == 0
    out = capsys.readouterr().out
    assert "pass time grows 55.00x for 50.00x the ops" in out and "targets met" in out
    monkeypatch.setattr(bench, "measure", _results({1000: 1.0, 50000: 56.0}))
    assert bench.main(["--sizes", "1000,50000"]) == 1
    out = capsys.readouterr().out
    assert "target missed: more than 1.1 x 50.0 (55x for 50x the ops)" in out
    assert out.rstrip().endswith("targets missed")
    # small modules or less than 40x the ops: the scaling is not judged
    for sizes, times in (("20,1000", {20: 1.0, 1000: 500.0}), ("1000,10000", {1000: 1.0, 10000: 500.0})):
        monkeypatch.setattr(bench, "measure", _results(times))
        assert bench.main(["--sizes", sizes]) == 0, sizes
        out = capsys.readouterr().out
        assert "(scaling target judged on the full 1k -> 50k run only)" in out
