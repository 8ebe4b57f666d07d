"""qcomp-opt and qcomp-run verify a module the same way (`qcomp.tools.verify`): the same
first error, at the same op, in the same words."""

from __future__ import annotations

import io

import pytest

from qcomp.tools import qcomp_opt, qcomp_run

INVALID = {
    # the op's own verifier: MLIR's `'<op>' op <message>`
    "return type": """func.func @main() -> tensor<3xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}
""",
    # an operand count (IRDL's verifier)
    "operands": """func.func @main() -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %d = "stablehlo.add"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
}
""",
    # xDSL's message names the op already: not prefixed a second time
    "terminator": """func.func @main() -> tensor<2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  %d = stablehlo.add %c, %c : tensor<2xf32>
}
""",
    # the module's structure, checked after each op's own verifier (verify.py)
    "empty block": """func.func @main() {
^bb0:
}
""",
}

EXPECTED = {
    "return type": "<stdin>:3:3: error: type of return operand 0 ",
    "operands": "<stdin>:3:8: error: 'stablehlo.add' op Expected 2 operands, but got 1\n",
    "terminator": "<stdin>:3:8: error: Operation stablehlo.add terminates block in "
                  "single-block region but is not a terminator\n",
    "empty block": "loc(unknown): error: Operation func.func contains empty block in "
                   "single-block region that expects at least a terminator\n",
}


def _run(main, text: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["-"], io.StringIO(text), out, err)
    return code, err.getvalue()


@pytest.mark.parametrize("case", sorted(INVALID))
def test_both_tools_report_the_same_verifier_error(case):
    opt_code, opt_err = _run(qcomp_opt.main, INVALID[case])
    run_code, run_err = _run(qcomp_run.main, INVALID[case])
    assert (opt_code, run_code) == (1, 1)  # one exit-code rule
    assert opt_err.startswith(EXPECTED[case]), opt_err
    assert run_err == opt_err
