"""xDSL plugin entry point (`xdsl.universe` group): plain `xdsl-opt` sees qcomp's
dialects and passes once qcomp is installed."""

from xdsl.universe import Universe

from qcomp.registry import DIALECTS, PASSES

QCOMP_UNIVERSE = Universe(all_dialects=dict(DIALECTS), all_passes=dict(PASSES))
