"""The README's fresh-machine commands, .ci/run and the shipped example agree and work."""

from __future__ import annotations

import io
import re
from pathlib import Path

from qcomp.tools.qcomp_opt import main

REPO = Path(__file__).resolve().parent.parent
TEST_COMMAND = "python3 -m pip install -e '.[test]' && python3 -m pytest -q"
MAIN_COMMAND = "python3 -m pip install -e . && qcomp-opt examples/quantized_add.mlir"


def sh_blocks() -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", (REPO / "README.md").read_text(), re.S)]


def first_command() -> str:
    """The README's fresh-machine command (its first ```sh block)."""
    return sh_blocks()[0]


def test_readme_has_both_commands():
    blocks = sh_blocks()
    assert blocks[0] == MAIN_COMMAND
    assert blocks[1] == TEST_COMMAND


def test_ci_run_ends_with_the_test_command():
    script = (REPO / ".ci" / "run").read_text()
    lines = [ln for ln in script.splitlines() if ln.strip()]
    assert lines[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in lines
    assert lines[-1] == TEST_COMMAND
    assert (REPO / ".ci" / "run").stat().st_mode & 0o111


def _opt(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_example_round_trips():
    path = str(REPO / "examples" / "quantized_add.mlir")
    code, out, err = _opt(path)
    assert (code, err) == (0, "")
    assert ("%sum = stablehlo.add %qx, %qy : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>, "
            "tensor<4x!quant.uniform<i8:f32, 2.500000e-01:2>>) -> "
            "tensor<4x!quant.uniform<i8:f32, 7.500000e-01:1>>") in out
    again = io.StringIO()
    assert main(["-"], stdin=io.StringIO(out), stdout=again, stderr=io.StringIO()) == 0
    assert again.getvalue() == out


def test_example_lowers_without_quant_types():
    code, out, err = _opt(str(REPO / "examples" / "quantized_add.mlir"),
                          "--stablehlo-legalize-quant-to-math")
    assert (code, err) == (0, "")
    assert "quant" not in out
    assert "stablehlo.round_nearest_even" in out
