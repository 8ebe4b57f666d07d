"""Where the ops of an imported model came from, by line of the printed module.

A model file is imported, printed as MLIR text, and that text is what the tools parse:
a diagnostic about one of its ops has an offset into text the user never saw. The
importer records each op it builds -> its origin (`node 'conv1' (Conv)`, `initializer
'w'`); `line_origins` turns that into printed line -> origin, which
`qcomp.tools.diagnostics.SourceFile` uses in place of `file:line:col`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation


def line_origins(module: ModuleOp, text: str, origins: dict[Operation, str]) -> dict[int, str]:
    """Printed line (1-based) -> origin, for the ops of `module`'s functions, each printed
    on a line of its own after its function's header (the importers build no op with a
    region inside a function); empty when the text is not laid out that way."""
    lines = text.split("\n")
    out: dict[int, str] = {}
    line = 0
    for f in module.body.block.ops:
        header = next((i for i in range(line, len(lines))
                       if lines[i].lstrip().startswith("func.func")), None)
        if header is None:
            return {}
        line = header + 1
        for op in f.walk():
            if op is f:
                continue
            if op.regions:
                return {}
            if op in origins:
                out[line + 1] = origins[op]
            line += 1
    return out


__all__ = ["line_origins"]
