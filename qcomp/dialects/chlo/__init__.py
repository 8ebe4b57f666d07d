"""The `chlo` dialect (client HLO): broadcasting binary ops (`broadcast.py`) and the
special functions, `top_k` and constants JAX emits (`ops.py`)."""

from xdsl.ir import Dialect

from qcomp.dialects.chlo.broadcast import *  # noqa: F403
from qcomp.dialects.chlo.broadcast import (  # noqa: F401 - BROADCASTING_TWIN, re-exported
    BROADCAST_OPS,
    BROADCASTING_TWIN,
    ChloComparisonDirectionAttr,
    ChloComparisonTypeAttr,
)
from qcomp.dialects.chlo.ops import *  # noqa: F403
from qcomp.dialects.chlo.ops import OPS

CHLO = Dialect("chlo", [*BROADCAST_OPS, *OPS],
               [ChloComparisonDirectionAttr, ChloComparisonTypeAttr])
