"""The `stablehlo` dialect: every op qcomp defines, one class each.

Modules: `elementwise` (op families, unary ops), `binary` (binary ops, clamp, select,
compare), `ops` (constants, shape,
contraction and structural ops), `reduce` (reduce, reduce_window), `attrs` (attributes),
`control` (while, if, case, map, tuple, token, composite), `scatter` (scatter,
select_and_scatter), `sort`, `syntax` / `syntax_nn` (custom assembly), `format` (shared assembly helpers), `kinds`
(operand/result element kinds), `verify` / `verify_nn` / `quant_verify` (verifiers).

Importing the package imports none of them: a class (`stablehlo.AddOp`) loads its own
module when first asked for, `index.definitions(name)` loads the modules defining an op or
attribute name (`index.py`; qcomp's contexts load the dialect that way, op by op:
docs/design.md, "Start-up"), and `StableHLO`, the whole dialect, imports every module.
"""

from __future__ import annotations

import importlib

from qcomp.dialects.stablehlo.index import INDEX


def _load_all() -> None:
    """Import every module and define `StableHLO` and `ELEMENTWISE_OPS` (the package's
    namespace is then what it was when it imported everything at once)."""
    from xdsl.ir import Dialect
    from xdsl.irdl import IRDLOperation

    modules = {name: importlib.import_module(f"{__name__}.{name}") for name in INDEX.modules}
    space = globals()
    for module in modules.values():  # the public names of each (`from ... import *`)
        space.update((k, v) for k, v in vars(module).items() if not k.startswith("_"))
    ops, reduce, scatter = modules["ops"], modules["reduce"], modules["scatter"]
    elementwise_ops = [
        cls for module in (modules["elementwise"], modules["binary"])
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, IRDLOperation) and cls.__module__ ==
        module.__name__ and hasattr(cls, "name") and isinstance(cls.name, str)]
    space["ELEMENTWISE_OPS"] = elementwise_ops
    space.update(ReduceOp=reduce.ReduceOp, ReduceWindowOp=reduce.ReduceWindowOp,
                 ScatterOp=scatter.ScatterOp, SelectAndScatterOp=scatter.SelectAndScatterOp,
                 ScatterDimensionNumbersAttr=scatter.ScatterDimensionNumbersAttr,
                 SortOp=modules["sort"].SortOp, Dialect=Dialect,
                 STABLEHLO_ATTRS=modules["attrs"].STABLEHLO_ATTRS,
                 OP_ATTRS=modules["op_attrs"].OP_ATTRS)
    space["StableHLO"] = Dialect(
        "stablehlo",
        [
            ops.ConstantOp, ops.IotaOp, *elementwise_ops,
            ops.BitcastConvertOp, ops.ReshapeOp, ops.TransposeOp, ops.BroadcastInDimOp,
            ops.ConcatenateOp, ops.SliceOp, ops.PadOp, ops.GatherOp,
            ops.DotOp, ops.DotGeneralOp, ops.ConvolutionOp, ops.BatchNormInferenceOp,
            reduce.ReduceOp, reduce.ReduceWindowOp, ops.ReturnOp, ops.OptimizationBarrierOp,
            ops.CustomCallOp,
            *modules["control"].CONTROL_OPS, scatter.ScatterOp, scatter.SelectAndScatterOp,
            modules["sort"].SortOp,
            *modules["dynamic"].DYNAMIC_OPS, *modules["complex"].COMPLEX_OPS,
            *modules["linalg"].LINALG_OPS, *modules["collectives"].COLLECTIVE_OPS,
        ],
        [*modules["attrs"].STABLEHLO_ATTRS, *modules["control"].CONTROL_TYPES,
         scatter.ScatterDimensionNumbersAttr, *modules["op_attrs"].OP_ATTRS],
    )


def __getattr__(name: str):
    """A class from the module defining it, a submodule, or (`StableHLO`, anything
    else the package used to re-export) the whole dialect."""
    if name.startswith("__"):
        raise AttributeError(name)
    module = INDEX.module_of_class(name)
    if module is not None:
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    if INDEX.is_module(name):
        return importlib.import_module(f"{__name__}.{name}")
    if "StableHLO" not in globals():
        _load_all()
    if name in globals():
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
