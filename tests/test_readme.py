"""The README's fresh-machine command does what the README says: it lowers the shipped
example and runs the quantized and the lowered program side by side, with the right
numbers; .ci/run runs the README's test command; the shipped example works with both
tools. (tests/test_plain_install.py runs the first command in a fresh venv.)"""

from __future__ import annotations

import io
import os
import re
import shlex
from pathlib import Path

import numpy as np

from qcomp.interpreter import run
from qcomp.interpreter.values import quant_of
from qcomp.registry import parse_module
from qcomp.tools.qcomp_opt import main as opt_main
from qcomp.tools.qcomp_run import main as run_main

REPO = Path(__file__).resolve().parent.parent
TEST_COMMAND = "python3 -m pip install -e '.[test]' && python3 -m pytest -q"
INSTALL = "python3 -m pip install -e ."


def readme() -> str:
    return (REPO / "README.md").read_text()


def sh_blocks() -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", readme(), re.S)]


def first_command() -> str:
    """The README's fresh-machine command (its first ```sh block)."""
    return sh_blocks()[0]


def first_tool_argv() -> list[str]:
    """The qcomp part of the first command (after the install), as argv."""
    install, sep, tool = first_command().partition(" && ")
    assert (install, sep) == (INSTALL, " && ")
    assert not re.search(r"&&|\|\||[;|<>`$]", tool), "one plain command after the install"
    return shlex.split(tool)


def run_first_command() -> tuple[int, str, str]:
    argv = first_tool_argv()
    assert argv[0] == "qcomp-run"
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(REPO)  # the README's paths are relative to the checkout
        code = run_main(argv[1:], io.StringIO(""), out, err)
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def test_readme_has_both_commands():
    blocks = sh_blocks()
    assert blocks[0].startswith(INSTALL + " && qcomp-")
    assert "\n" not in blocks[0]  # one line
    assert blocks[1] == TEST_COMMAND


def test_ci_run_ends_with_the_test_command():
    script = (REPO / ".ci" / "run").read_text()
    lines = [ln for ln in script.splitlines() if ln.strip()]
    assert lines[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in lines
    assert lines[-1] == TEST_COMMAND
    assert (REPO / ".ci" / "run").stat().st_mode & 0o111


def _inputs(argv: list[str]) -> list[np.ndarray]:
    values = []
    for a in argv:
        m = re.fullmatch(r"--input=4xf32=([^=]+)", a)
        if m:
            values.append(np.array([float(v) for v in m.group(1).split(",")], np.float32))
    return values


def _spec_quantized_add(module, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The example computed from the spec's formulas with the example's own quant types."""
    f = next(op for op in module.walk() if op.name == "func.func")
    qx, qy, qsum = (quant_of(op.results[0].type) for op in list(f.body.block.ops)[:3])

    def quantize(v, q):
        return np.clip(np.round(np.float32(v) / np.float32(q.scale) + q.zero_point), -128, 127)

    def dequantize(s, q):
        return ((s - q.zero_point) * np.float32(q.scale)).astype(np.float32)

    total = dequantize(quantize(x, qx), qx) + dequantize(quantize(y, qy), qy)
    return dequantize(quantize(total, qsum), qsum)


def test_first_command_lowers_and_runs_both_programs():
    code, out, err = run_first_command()
    argv = first_tool_argv()
    assert (code, err) == (0, "")
    assert {"--compare-lowered", "--print-lowered"} <= set(argv)
    example = parse_module((REPO / argv[1]).read_text())
    x, y = _inputs(argv)
    want = f"4xf32=[{' '.join(f'{v:g}' for v in _spec_quantized_add(example, x, y))}]"
    # the quantized rounding is visible: the results are not the float sums
    assert not np.array_equal(_spec_quantized_add(example, x, y), x + y)
    lines = out.splitlines()
    assert lines[-3:] == [f"@main result[0] quantized: {want}",
                          f"@main result[0] lowered:   {want}",
                          "@main: quantized and lowered results agree bit for bit"]
    # what comes before is the lowered program: integer math, no quant types, and it
    # computes those results when run on its own
    assert lines[0].startswith("// qcomp-run: the program lowered by stablehlo-lower-quant")
    lowered = parse_module("\n".join(lines[1:-3]))
    assert "!quant" not in "\n".join(lines[1:-3])
    assert re.search(r"stablehlo.convert %\d+ : \(tensor<4xf32>\) -> tensor<4xi8>", out)
    [r] = run(lowered, [x, y])
    assert r.error is None and r.results[0].tolist() == _spec_quantized_add(example, x, y).tolist()


def test_readme_shows_what_the_first_command_prints():
    """The README's excerpt of the output (```text after the command; `...` elides lines)
    is what the command prints."""
    after = readme().split(first_command(), 1)[1]
    excerpt = re.search(r"```text\n(.*?)```", after, re.S).group(1).splitlines()
    _, out, _ = run_first_command()
    printed = out.splitlines()
    pos = 0
    for line in excerpt:
        if line == "...":
            continue
        assert line in printed[pos:], f"README shows a line the command does not print: {line!r}"
        pos = printed.index(line, pos) + 1
    assert excerpt[-1] == printed[-1]


def _opt(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return opt_main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_example_round_trips():
    path = str(REPO / "examples" / "quantized_add.mlir")
    code, out, err = _opt(path)
    assert (code, err) == (0, "")
    assert ("%2 = stablehlo.add %0, %1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, "
            "tensor<4x!quant.uniform<i8:f32, 2.500000e-01:2>>) -> "
            "tensor<4x!quant.uniform<i8:f32, 7.500000e-01:1>>") in out
    again = io.StringIO()
    assert opt_main(["-"], stdin=io.StringIO(out), stdout=again, stderr=io.StringIO()) == 0
    assert again.getvalue() == out


def test_example_lowers_without_quant_types():
    code, out, err = _opt(str(REPO / "examples" / "quantized_add.mlir"),
                          "--stablehlo-legalize-quant-to-math")
    assert (code, err) == (0, "")
    assert "quant" not in out
    assert "stablehlo.round_nearest_even" in out
