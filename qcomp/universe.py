"""xDSL plugin entry point (`xdsl.universe` group): plain `xdsl-opt` sees qcomp's
dialects and passes once qcomp is installed, under the names qcomp-opt takes: each
pass's canonical name, its aliases, and the named pipelines (each as one pass)."""

from xdsl.universe import Universe

from qcomp.pipeline import pipeline_factories
from qcomp.registry import DIALECTS, PASSES

# xDSL's own universe already registers dialects named `func`, `tosa` and `tensor`, and
# Universe merging raises on duplicate names, so qcomp's (which replace xDSL's in
# `make_context()`) are left out of the plugin list.
_SHARED_WITH_XDSL = {"func", "tosa", "tensor"}

QCOMP_UNIVERSE = Universe(
    all_dialects={k: v for k, v in DIALECTS.items() if k not in _SHARED_WITH_XDSL},
    all_passes={**PASSES, **pipeline_factories()},
)
