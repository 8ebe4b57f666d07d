"""The qcomp interpreter: runs StableHLO (quantized or not) and check ops on NumPy.

    from qcomp.interpreter import run
    runs = run(module, {"arg0": x}, semantics="stablehlo")   # list of FunctionRun

`semantics` is "spec" (the StableHLO spec's formulas, computed exactly) or
"stablehlo" (bit for bit what upstream's reference interpreter computes).
"""

from qcomp.interpreter.errors import MemoryLimitError, RunError
from qcomp.interpreter.runner import (
                                    DEFAULT_MAX_MEMORY,
                                    FunctionRun,
                                    entry_functions,
                                    run,
                                    run_function,
                                    run_on_grid,
                                    semantics_matter,
)

__all__ = ["DEFAULT_MAX_MEMORY", "FunctionRun", "MemoryLimitError", "RunError", "entry_functions",
           "run", "run_function", "run_on_grid", "semantics_matter"]
