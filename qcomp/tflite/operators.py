"""Every TFLite operator declaration (`qcomp.tflite.operator.Operator`), by name, in
the order the modules declare them; and the `rescale=fixed-point` kernels they declare,
by StableHLO op class or `tfl.*` composite name."""

from __future__ import annotations

from qcomp.tflite import (  # noqa: F401  (each module declares its operators)
    activations,
    arithmetic,
    comparisons,
    contractions,
    data_movement,
    elementwise,
    float_math,
    float_windows,
    index_math,
    indexing,
    integers,
    log_softmax,
    normalization,
    pooling,
    rearrangements,
    rectifiers,
    reduce_prod,
    reducers,
    reductions,
    shapes,
    spec_rules,
    splits,
    tables,
    upsampling,
)
from qcomp.tflite.operator import OPERATORS, Kernel, Operator


def kernels() -> dict:
    """StableHLO op class / composite name -> the kernel an operator declares for it."""
    found: dict = {}
    for op in OPERATORS.values():
        for key, kernel in op.kernels.items():
            if key in found and found[key] is not kernel:
                raise ValueError(f"two TFLite kernels for {key}")
            found[key] = kernel
    return found


def kernel_for(key) -> Kernel | None:
    """The kernel declared for a StableHLO op class or a `tfl.*` composite name."""
    return kernels().get(key)


def imported() -> dict[str, Operator]:
    """The operators the importer takes (those with a `build`)."""
    return {name: op for name, op in OPERATORS.items() if op.build is not None}


__all__ = ["OPERATORS", "imported", "kernel_for", "kernels"]
