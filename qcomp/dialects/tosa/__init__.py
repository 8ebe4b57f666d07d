"""The `tosa` dialect as upstream MLIR prints it: the ops qcomp uses (`ops.py`), their
shared assembly and verifier helpers (`support.py`)."""

from xdsl.dialects.tosa import NanModeAttr, RoundingModeAttr
from xdsl.ir import Dialect

from qcomp.dialects.tosa.ops import *  # noqa: F403
from qcomp.dialects.tosa.ops import (
    AbsOp,
    AddOp,
    CastOp,
    ClampOp,
    ConstOp,
    EqualOp,
    GreaterEqualOp,
    GreaterOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    RescaleOp,
    SubOp,
)

TOSA = Dialect(
    "tosa",
    [AbsOp, AddOp, CastOp, ClampOp, ConstOp, EqualOp, GreaterEqualOp, GreaterOp,
     MaximumOp, MinimumOp, MulOp, RescaleOp, SubOp],
    [NanModeAttr, RoundingModeAttr],
)
