"""qcomp's passes, one ModulePass module per pass named after it (`qcomp/passes/<name>.py`),
and the shared helpers beside them (`utils/`, and one subpackage per pass family).

    from qcomp.passes import PASSES, pass_class
    LowerQuant = pass_class("stablehlo-legalize-quant-to-math")   # the ModulePass class
    LowerQuant(rescale="fixed-point").apply(ctx, module)

`PASSES` maps each pass's canonical name (upstream's, where upstream has the pass) to a
factory that imports its module; `PASS_ALIASES` maps the other names a pass answers to
(upstream's older names) to the canonical one. `pass_class` takes either. Named
pipelines and xDSL's clean-up passes are `qcomp.registry`'s (`qcomp.run_pipeline` runs
all of them by name).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # xDSL's pass machinery loads with the first pass (`_load`)
    from xdsl.passes import ModulePass

PASS_NAMES = (
    "strip-func-quant-types",
    "normalize-quant-types",
    "lower-quant-ops",
    "stablehlo-legalize-qdq-to-quantized-op",
    "stablehlo-legalize-quantized-op-to-qdq",
    "stablehlo-quant-legalize-to-tosa-rescale",
    "tosa-rescale-legalize-to-stablehlo",
    "stablehlo-legalize-quant-to-math",
    "rowwise-legalize-to-stablehlo",
    "litert-verify-int8",
    "litert-quantize-weights",
    "onnx-legalize-to-stablehlo",
    "onnx-legalize-qdq-to-quant",
    "onnx-fuse-qdq",
    "onnx-unfuse-qdq",
    "set-batch-size",
)
"""qcomp's passes by their canonical name (upstream's, where upstream has the pass)."""


def _load(name: str) -> type[ModulePass]:
    """The pass class named `name`, from its module `qcomp.passes.<name with _>` (the
    layout rule). Found by name, imported on first use: this package's `__init__` imports
    none of its pass modules, so a module that imports a pass helper
    (`qcomp.passes.utils`) never runs a pass module's imports through it."""
    from xdsl.passes import ModulePass

    module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, ModulePass) and \
                value.__module__ == module.__name__ and getattr(value, "name", None) == name:
            return value
    raise LookupError(f"{module.__name__} defines no pass named '{name}'")


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    name: functools.partial(_load, name) for name in PASS_NAMES
}
"""name -> factory (the pass class, its module imported on first use)."""

PASS_ALIASES: dict[str, str] = {
    # upstream StableHLO's name for the pass before it was renamed to -to-math
    "stablehlo-legalize-quant-to-int": "stablehlo-legalize-quant-to-math",
}
"""Other names of a pass (alias -> canonical name), accepted everywhere a pass is named
(qcomp-opt, `qcomp.run_pipeline`, the xDSL plugin) and listed in `--help` and
docs/passes.md."""


def canonical_name(name: str) -> str:
    """The canonical name of a pass named `name` (itself when it is not an alias)."""
    return PASS_ALIASES.get(name, name)


@functools.cache
def pass_class(name: str) -> type[ModulePass]:
    """The pass class registered as `name` (a canonical name or an alias; KeyError
    otherwise). An alias's class is the canonical class under the alias's `name`: xDSL
    requires a pass spec's name to equal its class's, so `xdsl-opt -p <alias>` needs it."""
    if name in PASSES:
        return PASSES[name]()
    cls = PASSES[PASS_ALIASES[name]]()
    doc = f"{canonical_name(name)} under its other name `{name}` (same pass, same options)."
    return type(cls.__name__, (cls,), {"name": name, "__doc__": doc,
                                       "__module__": cls.__module__})


__all__ = ["PASSES", "PASS_ALIASES", "canonical_name", "pass_class"]
