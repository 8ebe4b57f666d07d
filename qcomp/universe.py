"""xDSL plugin entry point (`xdsl.universe` group): plain `xdsl-opt` sees qcomp's
dialects and passes once qcomp is installed."""

from xdsl.universe import Universe

from qcomp.registry import DIALECTS, PASSES

# xDSL's own universe already registers a dialect named `tosa`, and Universe merging
# raises on duplicate names, so qcomp's `tosa` (which replaces xDSL's in
# `make_context()`) is left out of the plugin list.
_SHARED_WITH_XDSL = {"tosa"}

QCOMP_UNIVERSE = Universe(
    all_dialects={k: v for k, v in DIALECTS.items() if k not in _SHARED_WITH_XDSL},
    all_passes=dict(PASSES),
)
