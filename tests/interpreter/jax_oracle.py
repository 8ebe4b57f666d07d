"""StableHLO's reference interpreter (shipped in jaxlib) as an oracle (REFERENCE.md §4).

The program goes through a portable artifact because jaxlib's Python context has no
`quant` dialect. `eval_module` lowers quantized ops with upstream's quant-to-math
pass before interpreting.
"""

from __future__ import annotations

import re

import numpy as np

from tests.lazy import installed, lazy_module

# imported on first use (jax costs a second of CPU in every worker's collection)
_jmlir = lazy_module("jax._src.interpreters.mlir")
_ir = lazy_module("jax._src.lib.mlir", "ir")
_sh = lazy_module("jaxlib.mlir.dialects.stablehlo")
AVAILABLE = installed("jax", "jaxlib")
REASON = "" if AVAILABLE else "jax/jaxlib not installed; install the 'oracle' extra"


def eval_upstream(src: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Results of `@main(args...)` in upstream's reference interpreter (at the suite's
    commit for convolutions: see `suite_convolutions`)."""
    art = _sh.serialize_portable_artifact_str(src, _sh.get_current_version())
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown():
        m = suite_convolutions(ctx, _sh.deserialize_portable_artifact(ctx, art))
        outs = _sh.eval_module(m, [_attr(np.asarray(a, order="C")) for a in args])
        return [np.array(o) for o in outs]


_CONV = re.compile(r'^(\s*)(%\S+) = "stablehlo.convolution"\((%[^,]+), (%[^)]+)\)(.*) : '
                   r'\((tensor<[^>]*>), (tensor<[^>]*>)\) -> (tensor<[^>]*>)$', re.M)


def _element(t: str) -> str:
    return t[len("tensor<"):-1].split("x")[-1]


def _widen(m: re.Match) -> str:
    ind, res, lhs, rhs, attrs, lt, rt, ot = m.groups()
    e = _element(ot)
    if _element(lt) == e and _element(rt) == e:
        return m.group(0)
    wl, wr = (t[:-1].rsplit("x", 1)[0] + f"x{e}>" for t in (lt, rt))
    name = "%widened_" + re.sub(r"\W", "_", res[1:])
    return (f'{ind}{name}_l = "stablehlo.convert"({lhs}) : ({lt}) -> {wl}\n'
            f'{ind}{name}_r = "stablehlo.convert"({rhs}) : ({rt}) -> {wr}\n'
            f'{ind}{res} = "stablehlo.convolution"({name}_l, {name}_r){attrs} : ({wl}, {wr}) -> {ot}')


def suite_convolutions(ctx, m):
    """`m` as the reference interpreter at the suite's commit (openxla/stablehlo 3c9301c)
    runs it: since upstream #2953 (after jaxlib 0.10.2's interpreter) a convolution
    accumulates in its result element type, not its lhs type (an i8 x i8 -> i32
    convolution no longer wraps at 8 bits). Quantized ops are lowered first (upstream's
    stablehlo-legalize-quant-to-math, as eval_module does); every convolution whose
    operand element types differ from its result's then runs on operands converted to
    the result type, which is that accumulation. Modules without convolution are
    returned as they are."""
    from jax._src.lib.mlir import passmanager

    if "stablehlo.convolution" not in str(m):
        return m
    _sh.register_stablehlo_passes()
    passmanager.PassManager.parse("builtin.module(func.func(stablehlo-legalize-quant-to-math,"
                                  "chlo-legalize-to-stablehlo))").run(m.operation)
    text = m.operation.get_asm(print_generic_op_form=True)
    return _ir.Module.parse(_CONV.sub(_widen, text), ctx)


def _attr(a: np.ndarray):
    """A dense attribute of `a`'s type (unsigned arrays as `uiN`, which jaxlib would make `iN`)."""
    if a.dtype.name == "bfloat16":  # no buffer protocol for ml_dtypes: the bits, typed bf16
        return _ir.DenseElementsAttr.get(a.view(np.uint16), type=_ir.BF16Type.get())
    if a.dtype.kind == "u":
        return _ir.DenseElementsAttr.get(a, type=_ir.IntegerType.get_unsigned(a.dtype.itemsize * 8))
    return _ir.DenseElementsAttr.get(a)


def eval_xla(src: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Results of `@main(args...)` compiled by jaxlib's XLA on the CPU (an oracle for the
    ops upstream's reference interpreter leaves to decompositions: batch norm,
    cholesky, rng_bit_generator)."""
    import jax

    from qcomp.backends.xla import compile_text, get_device

    exe = compile_text(src)
    _, dev = get_device("cpu")
    with jax.enable_x64(True):
        bufs = [jax.device_put(np.asarray(a, order="C"), dev) for a in args]
    return [np.asarray(o) for o in exe.execute(bufs)]
def eval_chlo(src: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Results of `@main(args...)` with `chlo` ops: parsed in jaxlib's context (the
    portable artifact has no chlo), decomposed by upstream's chlo-legalize-to-stablehlo,
    then run by the reference interpreter."""
    from jax._src.lib.mlir import passmanager

    _sh.register_stablehlo_passes()
    ctx = _jmlir.make_ir_context()
    with ctx, _ir.Location.unknown():
        m = _ir.Module.parse(src)
        passmanager.PassManager.parse(
            "builtin.module(func.func(chlo-legalize-to-stablehlo))").run(m.operation)
        outs = _sh.eval_module(m, [_attr(np.ascontiguousarray(a)) for a in args])
        return [np.array(o) for o in outs]
