"""qcomp-run's `--compare-lowered` and `--print-lowered`: the program lowered by the
`stablehlo-lower-quant` pipeline in the mode matching `--semantics` (spec ->
`rescale=float`, the spec's formulas; stablehlo -> `rescale=stablehlo`, upstream's
lowering, the program upstream's reference interpreter runs; litert ->
`rescale=fixed-point`, LiteRT's integer kernels, which `--semantics litert` runs), and
the bit-for-bit
comparison of its results with the quantized program's."""

from __future__ import annotations

import numpy as np

PIPELINE = "stablehlo-lower-quant"
RESCALE = {"spec": "float", "stablehlo": "stablehlo", "litert": "fixed-point"}
"""`--semantics` -> the lowering's `rescale` mode whose numerics it is
(`LegalizeQuantToMathPass.numerics_contract`: both exact)."""


def lowering_spec(semantics: str) -> str:
    return f"{PIPELINE}{{rescale={RESCALE[semantics]}}}"


def lower_in_place(ctx, module, semantics: str, positions, verify):
    """Run the lowering pipeline on `module`; the first problem as a Diagnostic (at the
    op at fault, or its closest parsed ancestor), else None. `verify(module,
    positions)` is the tool's verifier, run after every pass."""
    from xdsl.utils.exceptions import DiagnosticException

    from qcomp.pipeline import build_passes
    from qcomp.tools.cli import InternalError, op_offset
    from qcomp.tools.diagnostics import Diagnostic

    for p in build_passes([lowering_spec(semantics)]):
        try:
            p.apply(ctx, module)
        except DiagnosticException as e:
            op = getattr(e, "op", None)
            message = getattr(e, "message", None) or str(e).strip()
            return Diagnostic("error", f"{message} (lowering with {lowering_spec(semantics)}, "
                                       f"pass '{p.name}')", op_offset(op, positions))
        except Exception as e:
            raise InternalError(f"{type(e).__name__}: {e} (in pass '{p.name}' of "
                                f"{lowering_spec(semantics)})") from e
        diag = verify(module, positions)
        if diag is not None:
            diag.message = f"{diag.message} (after pass '{p.name}' of {lowering_spec(semantics)})"
            return diag
    return None


def lowered_header(semantics: str, compared: bool) -> str:
    """The comment line above a `--print-lowered` program: what it is and whether it ran."""
    what = f"// qcomp-run: the program lowered by {lowering_spec(semantics)}"
    if compared:
        return f"{what}; --compare-lowered runs it beside the quantized program\n"
    if semantics == "stablehlo":
        return (f"{what}, which upstream's reference interpreter runs; qcomp-run runs the "
                "quantized program, with the same results (--compare-lowered runs both)\n")
    return (f"{what} (the spec's formulas); qcomp-run runs the quantized program "
            "(--compare-lowered runs both)\n")


def first_difference(quantized: list[np.ndarray], lowered: list[np.ndarray]) -> str | None:
    """None when every result is bit for bit the same (quantized results as their
    storage integers), else where they first differ."""
    if len(quantized) != len(lowered):
        return f"{len(quantized)} quantized result(s), {len(lowered)} lowered"
    for i, (a, b) in enumerate(zip(quantized, lowered)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return f"result[{i}] has shape {a.shape} quantized, {b.shape} lowered"
        same = _same_bits(a, b)
        if same is None:
            return f"result[{i}] has dtype {a.dtype} quantized, {b.dtype} lowered"
        if not same.all():
            idx = tuple(int(k) for k in np.argwhere(~same)[0])
            return (f"result[{i}] at {list(idx)}: quantized {_item(a[idx])}, lowered "
                    f"{_item(b[idx])} ({int((~same).sum())} of {same.size} element(s) differ)")
    return None


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Element-wise bit equality; integers of different containers compare by value;
    None when the kinds cannot be compared."""
    if a.dtype == b.dtype:
        if a.dtype.kind in "fcV" and a.dtype.itemsize in (1, 2, 4, 8):
            view = np.dtype(f"u{a.dtype.itemsize}")
            return a.view(view) == b.view(view)
        if a.dtype.kind == "c":
            return _same_bits(a.real.copy(), b.real.copy()) & _same_bits(a.imag.copy(), b.imag.copy())
        return a == b
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return a.astype(np.int64) == b.astype(np.int64)
    return None


def _item(x) -> str:
    from qcomp.tools.run_inputs import format_element

    return format_element(x)
