"""Every upstream StableHLO quantized test program parses, verifies and round-trips.

Reads ../shared/conformance/stablehlo/**.mlir (split at `// -----`), which upstream
`stablehlo-opt` printed. Per chunk:
- parse with qcomp's parser and context, verify;
- pretty print -> parse -> pretty print is a fixed point;
- the generic form parses back to a module that prints the same generic and pretty text
  (text, not `is_structurally_equivalent`: NaN constants never compare equal);
- in testdata_quantized/ (upstream-printed), every stablehlo op line comes back
  unchanged (upstream's exact syntax), SSA names aside.
"""

from __future__ import annotations

import functools

import math
import re
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from qcomp.registry import make_context

try:  # qcomp's parser/printer read and write dense<> as MLIR does (hex floats are bits)
    from qcomp.ir import QcompParser as Parser
    from qcomp.ir import print_module
except ImportError:  # pragma: no cover - literals.py is written by another module
    from xdsl.parser import Parser

    def print_module(module: ModuleOp, generic: bool = False) -> str:
        out = StringIO()
        Printer(stream=out, print_generic_format=generic).print_op(module)
        return out.getvalue()

ROOT = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "stablehlo"
FILES = sorted(ROOT.rglob("*.mlir")) if ROOT.is_dir() else []
needs_shared = pytest.mark.skipif(not FILES, reason=f"conformance data not found at {ROOT}")


def _chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


@functools.cache
def _parse_source(chunk: str) -> ModuleOp:
    """`_parse` of a conformance chunk, once per session (callers only read it)."""
    return _parse(chunk)


def _print(module: ModuleOp, generic: bool = False) -> str:
    return print_module(module, generic=generic)


_SSA = re.compile(r"%[A-Za-z0-9_]+")
# A splat of a zero-element tensor (`dense<2> : tensor<2x0x3xi4>`) keeps no value once
# parsed, so it prints as `dense<>`; only the literal text of such constants may differ.
_EMPTY_SPLAT = re.compile(r"dense<[^>]*>( : tensor<(?:[0-9]+x)*0x)")


def _stablehlo_lines(text: str) -> list[str]:
    """The pretty stablehlo op lines, SSA names replaced by `%_`."""
    lines = []
    for line in text.splitlines():
        body = line.split("//", 1)[0].strip()
        if re.match(r"^(%[A-Za-z0-9_:]+ = )?stablehlo\.", body):
            op_text = body.split(" = ", 1)[-1] if " = " in body else body
            lines.append(_EMPTY_SPLAT.sub(r"dense<>\1", _SSA.sub("%_", op_text)))
    return lines


@needs_shared
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_conformance_file_round_trips(path: Path) -> None:
    chunks = _chunks(path)
    assert chunks, f"{path} has no functions"
    for index, chunk in enumerate(chunks):
        where = f"{path.name} chunk {index}"
        module = _parse_source(chunk)
        pretty = _print(module)
        assert _print(_parse(pretty)) == pretty, f"{where}: pretty form is not a fixed point"
        generic = _print(module, generic=True)
        again = _parse(generic)
        assert _print(again, generic=True) == generic, f"{where}: generic form changed"
        assert _print(again) == pretty, f"{where}: generic form parses to a different module"
        if path.parent.name == "testdata_quantized":  # printed by upstream stablehlo-opt
            assert _stablehlo_lines(pretty) == _stablehlo_lines(chunk), (
                f"{where}: stablehlo ops print differently from upstream")


@needs_shared
def test_conformance_covers_the_quantized_ops() -> None:
    """The data exercises the ops this suite claims to cover (guards a silent empty run)."""
    names: set[str] = set()
    for path in FILES:
        for chunk in _chunks(path):
            names.update(op.name for op in _parse_source(chunk).walk())
    expected = {"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize",
                "stablehlo.convolution", "stablehlo.dot_general", "stablehlo.gather",
                "stablehlo.transpose", "stablehlo.reshape", "stablehlo.custom_call",
                "stablehlo.bitcast_convert", "stablehlo.concatenate", "stablehlo.constant"}
    assert expected <= names, sorted(expected - names)


@needs_shared
def test_hex_float_constants_keep_their_bits() -> None:
    """`0x7F800000` in an f32 dense<> of add_qi8.mlir is +inf, `0xFF800000` is -inf."""
    path = ROOT / "testdata_quantized" / "add_qi8.mlir"
    if not path.exists():
        pytest.skip(f"{path} not present")
    chunk = next(c for c in _chunks(path) if "0x7F800000" in c)
    from qcomp.dialects.stablehlo import ConstantOp

    module = _parse(chunk)
    values = [v for op in module.walk() if isinstance(op, ConstantOp)
              for v in op.value.get_values() if isinstance(v, float)]
    assert math.inf in values and -math.inf in values
