"""`--backend xla` on programs that once crashed the process or escaped as internal
errors (issue 29, items 22-23): a recursive call (SIGSEGV inside XLA), calls nested
past what XLA's compiler survives, and XLA running out of memory at run time."""

from __future__ import annotations

import io

import pytest

from qcomp.backends import xla, xla_prepare
from qcomp.tools.qcomp_run import main

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

T = "tensor<4xi8>"


def _fn(name: str, body: str, private: bool = True) -> str:
    return (f"func.func {'private ' if private else ''}@{name}(%a: {T}) -> {T} {{\n"
            f"  %0 = {body}\n  return %0 : {T}\n}}\n")


def _call(callee: str) -> str:
    return f"func.call @{callee}(%a) : ({T}) -> {T}"


def run(tmp_path, program: str, *argv: str):
    p = tmp_path / "p.mlir"
    p.write_text(program)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(p), "--backend", "xla", "--input=4xi8=1", *argv], io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue().replace(str(p), "p.mlir")


def chain(depth: int, last: str = f"stablehlo.add %a, %a : {T}") -> str:
    """@main -> @f0 -> ... -> @f{depth-1}, whose body is `last`."""
    text = _fn("main", _call("f0"), private=False)
    for i in range(depth):
        text += _fn(f"f{i}", _call(f"f{i + 1}") if i < depth - 1 else last)
    return text


@pytest.mark.parametrize("program, line", [
    (_fn("main", _call("f"), private=False) + _fn("f", _call("main")), 6),
    (_fn("main", _call("main"), private=False), 2),
    (chain(5, _call("f2")), 22),
], ids=["mutual", "self", "cycle-below-the-entry"])
def test_recursive_calls_are_refused_before_xla_sees_them(tmp_path, program, line):
    code, out, err = run(tmp_path, program)
    callee = {6: "main", 2: "main", 22: "f2"}[line]
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        f"p.mlir:{line}:8: error: the xla backend cannot run the recursive call to "
        f"@{callee}: XLA has no recursion; run it with --backend numpy")


def test_calls_nested_past_the_limit_are_refused(tmp_path):
    depth = xla_prepare.MAX_CALL_DEPTH
    code, out, err = run(tmp_path, chain(depth - 1))
    assert (code, out, err) == (0, "@main result[0]: 4xi8=[2 2 2 2]\n", "")
    code, out, err = run(tmp_path, chain(depth))
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        f"p.mlir:{4 * depth - 2}:8: error: the xla backend cannot run calls nested more "
        f"than {depth} deep (XLA's compiler overflows its stack); run it with --backend numpy")


def test_out_of_memory_at_run_time_is_a_diagnostic(tmp_path, monkeypatch):
    """XLA's RESOURCE_EXHAUSTED, raised when the inputs are copied to the device (that
    step was outside the guarded run), is the program's error, not an internal one."""
    jx = xla.load_jax()

    def exhausted(*args, **kwargs):
        raise jx.xc.XlaRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating "
                                    "16000000000 bytes.")
    monkeypatch.setattr(xla, "_put", exhausted)
    code, out, err = run(tmp_path, _fn("main", f"stablehlo.add %a, %a : {T}", private=False))
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        "p.mlir:1:1: error: XLA failed running @main: RESOURCE_EXHAUSTED: Out of memory "
        "allocating 16000000000 bytes.")
