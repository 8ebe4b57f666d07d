"""Which module of the package defines each StableHLO op, attribute and class, read
from their source (`qcomp.ir.lazy_dialect.SourceIndex`), so that the package's
`__init__` and qcomp's contexts import one module, not the dialect."""

from __future__ import annotations

from pathlib import Path

from qcomp.ir.lazy_dialect import SourceIndex

OP_FILES = ("elementwise.py", "binary.py", "ops.py", "reduce.py", "control.py", "scatter.py",
            "sort.py", "dynamic.py", "complex.py", "linalg.py", "collectives.py", "attrs.py",
            "op_attrs.py")
"""The modules defining the dialect's ops, attributes and types
(`tests/dialects/test_lazy_dialect.py` checks that they define all of them)."""

INDEX = SourceIndex("qcomp.dialects.stablehlo", Path(__file__).parent, "stablehlo", OP_FILES)


def definitions(name: str) -> list[type]:
    """The op and attribute classes of the modules defining `name` (`stablehlo.add`),
    those modules imported now; [] for a name the dialect does not define."""
    return INDEX.definitions(name)
