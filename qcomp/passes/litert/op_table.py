"""The LiteRT 8-bit quantization spec's operator table, read from the TFLite operator
declarations (`qcomp.tflite`: one `Operator` per TFLite operator holds its spec rule
beside its import and its fixed-point kernels).

Each row is one TFLite operator of the spec's "int8 quantized operator
specifications" (plus the two StableHLO glue forms a TFLite graph hides: implicit
broadcasting and fused activations), with the StableHLO ops that express it (and the
ONNX ops, by name, for an ONNX front end), and what the spec asks of it (`output`,
`fixed`, `fixed16`, `weights`, `int16`: see `qcomp.tflite.operator`). `how` says how
`litert-verify-int8` recognises the op in StableHLO (`recognise.py` does it). A
`stablehlo.composite "tfl.<name>"` (the op's lower-case name) is always recognised as
that op.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from xdsl.ir import Operation

from qcomp.tflite.operator import Operator
from qcomp.tflite.operators import OPERATORS

Row = Operator



class _Table(Sequence):
    """The declarations in order, read when used (an operator declared later, e.g. by
    a test, is in it)."""

    def __getitem__(self, i):  # type: ignore[override]
        return tuple(OPERATORS.values())[i]

    def __len__(self) -> int:
        return len(OPERATORS)


class _ByComposite(Mapping):
    """`tfl.<name>` -> the spec row of that name, read when used."""

    def _rows(self) -> dict[str, Row]:
        return {r.composite: r for r in OPERATORS.values() if r.spec}

    def __getitem__(self, key: str) -> Row:
        return self._rows()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())


TABLE: Sequence[Row] = _Table()
BY_NAME: Mapping[str, Row] = OPERATORS
BY_COMPOSITE: Mapping[str, Row] = _ByComposite()

COMPARE: dict[str, str] = {"LT": "LESS", "GT": "GREATER", "GE": "GREATER_EQUAL",
                           "LE": "LESS_EQUAL", "EQ": "EQUAL", "NE": "NOT_EQUAL"}
"""`stablehlo.compare` direction -> TFLite op."""


def rows_for_stablehlo(op: Operation) -> list[Row]:
    """The table rows a StableHLO op can express (the recogniser picks one)."""
    return [r for r in TABLE if isinstance(op, r.stablehlo)]


def rows_for_onnx(name: str) -> list[Row]:
    """The table rows an ONNX op type can express."""
    return [r for r in TABLE if name in r.onnx]
