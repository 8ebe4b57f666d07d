"""`interpreter.print`, `interpreter.probe` and `check.expect_serialized_eq`.

- `print` adds `%name = ` and the value (`tensor_text`) to the run's printed text
  (qcomp-run writes it to stdout; one whole entry per print, also from the threads of
  `run_parallel`). The name is the operand's defining op's result as MLIR prints a
  value: `%0`, `%cst_1`, a group `%0:2`; a block argument prints `<` (upstream takes
  the text of `<block argument> of type ...` up to a `=` it does not find).
- `probe` records its operand's value under its `probe_id` each time it runs; the check
  compares a value with the `iter`-th record of its `probe_id` (exactly, as
  `check.expect_eq`). With a probe directory (`--probe-output-dir`) each probe also
  writes the value as upstream's evalProbeOp does: `probeN.npy` (N = 1, 2, ... per run of
  the module) and a line `probe_id,type,DIR/probeN.npy` appended to `DIR/index.csv`
  (removed when the run starts). The .npy file is NumPy format 1.0 with upstream's
  header text and descr per element type: i1/i8 `<i1`, ui8 `<u1`, i16 `<i2`, ui16 `<u2`,
  i32 `<i4`, ui32 `<u4`, i64 `<u8` and ui64 `<i8` (upstream's dispatch swaps them),
  f16/bf16 `<u2` (the bits), f32 `<f4`, f64 `<f8`, complex<f32> `<f8` (8 bytes per
  element, the two parts); other element types upstream cannot serialize (an error).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, ComplexType, Float16Type, Float32Type, Float64Type, IntegerType, Signedness
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from qcomp.dialects import check as chk
from qcomp.dialects.interpreter import PrintOp, ProbeOp
from qcomp.interpreter.checks import judge, log_of
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.run_output import INDEX_FILE, output_of


def records(interpreter: Interpreter) -> dict[str, list[np.ndarray]]:
    return interpreter.get_data(ProbeFunctions, "records", dict)


def _value_prefix(names, value) -> str:
    """What upstream prints before the value: the defining op's text up to `= `."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return "<"
    group = names.groups.get(owner)
    if group is not None:
        return f"%{group[0]}:{group[1]} = "
    return ", ".join("%" + names.values[r] for r in owner.results) + " = "


def _npy_layout(t) -> tuple[str, np.dtype]:
    """Upstream's descr (`dispatchType`) and the bytes' dtype for an element type."""
    e = t.get_element_type()
    if isinstance(e, IntegerType):
        w, unsigned = e.width.data, e.signedness.data == Signedness.UNSIGNED
        table = {(1, False): "<i1", (8, False): "<i1", (8, True): "<u1", (16, False): "<i2",
                 (16, True): "<u2", (32, False): "<i4", (32, True): "<u4", (64, False): "<u8",
                 (64, True): "<i8"}
        if (w, unsigned) in table:
            return table[(w, unsigned)], np.dtype(f"<{'u' if unsigned else 'i'}{max(w, 8) // 8}")
    if isinstance(e, Float16Type | BFloat16Type):
        return "<u2", np.dtype("<u2")
    if isinstance(e, Float32Type):
        return "<f4", np.dtype("<f4")
    if isinstance(e, Float64Type):
        return "<f8", np.dtype("<f8")
    if isinstance(e, ComplexType) and isinstance(e.element_type, Float32Type):
        return "<f8", np.dtype("<c8")
    from qcomp.dialects.stablehlo.kinds import type_text

    raise RunError(f"interpreter.probe: upstream cannot serialize {type_text(e)} values")


def npy_bytes(value: np.ndarray, t) -> bytes:
    """`value` as upstream's `serializeTensor` writes it (see the module docstring)."""
    descr, dtype = _npy_layout(t)
    dims = "".join(f"{d}," for d in t.get_shape())
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape' : ({dims}), }}"
    header += " " * (16 - (8 + 1) % 16 - 1) + "\n"  # upstream pads from offset 8 only
    a = np.ascontiguousarray(value)
    data = (a.view(np.uint16) if a.dtype.itemsize == 2 and dtype == np.dtype("<u2")
            else a.astype(dtype)).tobytes()
    n = len(header)
    return b"\x93NUMPY\x01\x00" + bytes([n & 0xFF, (n >> 8) & 0xFF]) + header.encode() + data


@register_impls
class ProbeFunctions(InterpreterFunctions):
    """`interpreter.print`, `interpreter.probe` and the check that reads its records."""

    @impl(PrintOp)
    def run_print(self, interpreter: Interpreter, op: PrintOp, args: tuple[Any, ...]):
        from qcomp.interpreter.tensor_text import value_text

        out = output_of(interpreter)
        names = out.names_of(interpreter.module)
        out.write(_value_prefix(names, op.operand) + value_text(args[0], op.operand.type) + "\n")
        return ()

    @impl(ProbeOp)
    def run_probe(self, interpreter: Interpreter, op: ProbeOp, args: tuple[Any, ...]):
        value = np.array(args[0])
        records(interpreter).setdefault(op.probe_id.data, []).append(value)
        out = output_of(interpreter)
        if out.probe_dir:
            from qcomp.dialects.stablehlo.kinds import type_text

            t = op.operand.type
            with out._lock:  # noqa: SLF001 - numbered and indexed in one step, as upstream
                path = os.path.join(out.probe_dir, f"probe{next(out._ids)}.npy")  # noqa: SLF001
                try:
                    with open(path, "wb") as f:
                        f.write(npy_bytes(value, t))
                    with open(os.path.join(out.probe_dir, INDEX_FILE), "a") as f:
                        f.write(f"{op.probe_id.data},{type_text(t)},{path}\n")
                except OSError:
                    raise RunError("Failed to open NumPy file.", op) from None
        return (args[0],)

    @impl(chk.ExpectSerializedEqOp)
    def run_expect_serialized_eq(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        probe_id = op.probe_id.data
        k = op.iteration.value.data if op.iteration is not None else 0
        seen = records(interpreter).get(probe_id, [])
        if k >= len(seen):
            raise RunError(f"Failed to find serialized data for probe {probe_id}.")
        log_of(interpreter).append(judge(op, args[0], seen[k], tolerance=None))
        return ()
