"""Parse, run a pass, print: the pieces the pass tests share."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from qcomp.registry import make_context

LIT_PASSES = Path(__file__).resolve().parents[1] / "lit" / "passes"


def context():
    ctx = make_context(allow_unregistered=True)
    if ctx.get_optional_dialect("math") is None:
        from xdsl.dialects.math import Math

        ctx.load_dialect(Math)
    return ctx


def parse(src: str) -> ModuleOp:
    module = Parser(context(), src).parse_module()
    module.verify()
    return module


def run_pass(p: ModulePass, src: str) -> ModuleOp:
    ctx = context()
    module = Parser(ctx, src).parse_module()
    module.verify()
    p.apply(ctx, module)
    module.verify()
    return module


def text(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def lit_cases(pass_name: str, file: str) -> list[str]:
    """The `// -----` separated cases of a lit test file."""
    return (LIT_PASSES / pass_name / file).read_text().split("// -----")


def case_id(case: str) -> str:
    """The name of the first `func.func @name` defined in a case (for test ids)."""
    import re

    names = re.findall(r"^func\.func @(\w+)", case, re.M)
    return names[0] if names else "case"
