"""Translation validation for `qcomp-opt --verify-numerics[=N]`.

The interpreter runs the module before the first pass and after every pass on the
same N random inputs per function; the first pass whose results differ from those
of the module it was given is named.

What "the same" means is the pass's numerics contract (`numerics_contract()` on the
pass, else `Contract()`): the semantics under which the quantized program before the
pass is read (`spec` or `stablehlo`, see `qcomp.interpreter`) and how far a result may
move:

- integer results (storage integers of quantized results included): at most
  `storage_tolerance` apart (0: bit for bit);
- float results: at most `storage_tolerance * s_max` apart, `s_max` the largest scale
  of any quantized type in the module before the pass or after it (a pass may introduce
  them, as onnx-legalize-qdq-to-quant does) (a result one storage step
  away, dequantized); NaN only where NaN was. With tolerance 0 this is bit for bit,
  and a pass whose contract says `nan_payloads` (its semantics fix which NaN comes
  out, as the rowwise formats follow torch's) must also keep every NaN's bits.

Inputs are drawn to cover what quantization gets wrong: for quantized arguments,
storage values uniformly over [storage_min, storage_max] plus the range ends and the
zero point; for float arguments, for every per-tensor type `(scale, zp)` that the
module quantizes to, ties `(k + 1/2) * scale` and values past the saturation points
`(storage_max - zp + k) * scale`, mixed with zeros, small multiples of 1/2 and
normal draws over several magnitudes; integer arguments over their whole range
with the ends. A function whose arguments have dynamic shapes is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnrankedTensorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.interpreter import DEFAULT_MAX_MEMORY, run_function, semantics_matter
from qcomp.interpreter.runner import _fmt_bytes, _nbytes
from qcomp.interpreter.stablehlo_control_functions import WHILE_ITERATION_LIMIT
from qcomp.interpreter.values import element_type, int_info, is_bool, is_float, numpy_dtype
from qcomp.quant.ranges import storage_range, wrap

SEMANTICS = ("spec", "stablehlo")
# iterations one `while` may run on the random inputs: a loop whose trip count comes from
# an input would otherwise run ~2**31 times; a sample that reaches it is not compared
WHILE_LIMIT = 10_000


@dataclass(frozen=True)
class Contract:
    """What a pass promises about the numbers (see module docstring)."""

    semantics: str = "spec"
    storage_tolerance: int = 0
    nan_payloads: bool = False
    batched: bool = False
    """The pass grows the leading (batch) dimension from B to N = k * B: each of the k
    blocks of a result must be the result of the per-sample program (`set-batch-size`)."""


def contract_of(p: ModulePass) -> Contract:
    """A pass states its contract as `numerics_contract() -> (semantics, tolerance)`,
    `(semantics, tolerance, nan_payloads)` or `(semantics, tolerance, nan_payloads,
    batched)`."""
    get = getattr(p, "numerics_contract", None)
    return Contract(*get()) if get is not None else Contract()


def _quant_types(module: ModuleOp) -> list[UniformQuantizedType]:
    found: dict[UniformQuantizedType, None] = {}
    for op in module.walk():
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            e = element_type(v.type)
            if isinstance(e, UniformQuantizedType):
                found[e] = None
    return list(found)


def _float_pool(qtypes: list[UniformQuantizedType]) -> np.ndarray:
    """Interesting float values for the module's quantized types."""
    pool = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 1.0, -1.0]
    for q in qtypes:
        scales = q.scales.ravel()
        zps = q.zero_points.ravel()
        for s, zp in zip(scales[:4], zps[:4]):
            for k in (-3, -1, 0, 1, 2):
                pool.append((k + 0.5) * s)
                pool.append((k - zp + 0.5) * s)
            for edge, sign in ((q.storage_max, 1), (q.storage_min, -1)):
                for k in (0, 1, 7):
                    pool.append((edge - zp + sign * k) * s)
                pool.append((edge - zp + sign * 0.5) * s)
    return np.array(pool, dtype=np.float64)


def _unranked_shape(f: func.FuncOp) -> tuple[int, ...]:
    """The shape drawn for the unranked tensor arguments of `f`: one that fits the first
    per-axis type on an unranked tensor in it (its quantized dimension holding one entry
    per scale), else (3, 2)."""
    for op in f.walk():
        for v in (*op.operands, *op.results):
            q = quantized_element(v.type)
            if isinstance(v.type, UnrankedTensorType) and q is not None and q.is_per_axis:
                return (2,) * q.quantized_dimension + (len(q.scales_attr.data), 2)
    return (3, 2)


DRAW_BLOCK = 1 << 20
"""Elements drawn at a time: the draws' int64 / float64 temporaries stay a few MiB
whatever the argument's size; only the argument itself, in its own dtype, is whole."""


def _draw(t: Attribute, rng: np.random.Generator, pool: np.ndarray,
          unranked: tuple[int, ...] = (3, 2)) -> np.ndarray | None:
    shape_get = getattr(t, "get_shape", None)
    shape = tuple(shape_get()) if shape_get is not None else ()
    if isinstance(t, UnrankedTensorType):
        shape = unranked
    if any(d < 0 for d in shape):
        return None
    e = element_type(t)
    draw = _drawer(e, pool)
    if draw is None:
        return None
    n = int(np.prod(shape, dtype=np.int64))
    if n <= DRAW_BLOCK:
        return draw(rng, n).reshape(shape)
    out = np.empty(n, dtype=np.bool_ if is_bool(e) else numpy_dtype(e))
    for start in range(0, n, DRAW_BLOCK):
        stop = min(n, start + DRAW_BLOCK)
        out[start:stop] = draw(rng, stop - start)
    return out.reshape(shape)


def _drawer(e: Attribute, pool: np.ndarray):
    """`draw(rng, n)`: n values of element type `e` in its dtype (module docstring), or
    None for a type the validator cannot draw."""
    if isinstance(e, UniformQuantizedType):
        lo, hi = e.storage_min, e.storage_max
        zp = e.zero_points.ravel()
        edges = np.array([lo, hi, int(zp[0]), min(hi, int(zp[0]) + 1), max(lo, int(zp[0]) - 1)])
        dt = numpy_dtype(e)

        def quantized(rng, n):
            vals = rng.integers(lo, hi, size=n, endpoint=True)
            pick = rng.random(n) < 0.25
            vals[pick] = rng.choice(edges, size=int(pick.sum()))
            return vals.astype(dt)
        return quantized
    if is_bool(e):
        return lambda rng, n: rng.random(n) < 0.5
    if is_float(e):
        dt = numpy_dtype(e)

        def floats(rng, n):
            normal = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, size=n)
            vals = np.where(rng.random(n) < 0.6, rng.choice(pool, size=n), normal)
            with np.errstate(over="ignore"):  # values past a narrow type's range become inf
                return vals.astype(dt)
        return floats
    try:
        width, signed = int_info(e)
        dt = numpy_dtype(e)
    except Exception:  # noqa: BLE001 - an element type the validator cannot draw
        return None
    lo, hi = storage_range(width, signed)
    lo, hi = max(lo, -(1 << 62)), min(hi, (1 << 62))

    def integers(rng, n):
        vals = rng.integers(lo, hi, size=n, endpoint=True)
        small = rng.random(n) < 0.5
        vals[small] = rng.integers(max(lo, -8), min(hi, 8), size=int(small.sum()),
                                   endpoint=True)
        edge = rng.random(n) < 0.1
        vals[edge] = rng.choice(np.array([lo, hi]), size=int(edge.sum()))
        return vals.astype(dt)
    return integers


def _as_type(a: np.ndarray, t: Attribute) -> np.ndarray:
    """An input drawn for the function before a pass, for its (possibly new) argument
    type: integers of the same width are reinterpreted (a quantized `u8` argument
    lowered to upstream's signless `i8` takes the same bits)."""
    e = element_type(t)
    try:
        dt = numpy_dtype(e)
    except Exception:  # noqa: BLE001 - leave it to the interpreter to report
        return a
    if a.dtype == dt or a.dtype.kind not in "iu" or dt.kind not in "iu":
        return a
    if a.dtype.itemsize == dt.itemsize:
        width, signed = int_info(e)
        if width < 8 * dt.itemsize:  # a `u4` 9 lowered to signless `i4` is -7
            return wrap(a, width, signed)
        return a.view(dt)
    return a.astype(dt)


def _batched(a: np.ndarray, t: Attribute) -> np.ndarray:
    """An input drawn with leading dimension B, for an argument whose leading dimension a
    pass made N = k * B (`set-batch-size`): the sample repeated k times, so every row of
    the batch must give the result of its sample."""
    shape = getattr(t, "get_shape", lambda: None)()
    if not shape or a.ndim != len(shape) or a.ndim == 0 or a.shape[1:] != tuple(shape[1:]):
        return a
    n, b = shape[0], a.shape[0]
    if n <= 0 or b == 0 or n == b or n % b:
        return a
    return np.concatenate([a] * (n // b))


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]


class NumericsValidator:
    """Runs the module before and after each pass and compares (module docstring)."""

    def __init__(self, module: ModuleOp, samples: int, seed: int = 0, backend: str = "numpy",
                 max_memory: int = DEFAULT_MAX_MEMORY):
        self.samples = max(1, samples)
        self.backend = backend
        self.lowered_problem: str | None = None
        rng = np.random.default_rng(seed)
        pool = _float_pool(_quant_types(module))
        self.inputs: dict[str, list[list[np.ndarray]]] = {}
        for f in _functions(module):
            arg_types = list(f.function_type.inputs.data)
            count = self.samples if arg_types else 1
            need = sum(_nbytes(t) for t in arg_types)
            if need > max_memory:
                raise CannotVerify(f,
                    f"the arguments of @{f.sym_name.data} need {_fmt_bytes(need)}, over the "
                    f"memory limit of {_fmt_bytes(max_memory)} that qcomp-run also keeps "
                    "(--max-memory); check this function with smaller shapes")
            if need * count > max_memory:
                raise CannotVerify(f,
                    f"{count} samples of the arguments of @{f.sym_name.data} need "
                    f"{_fmt_bytes(need * count)} ({_fmt_bytes(need)} each), over the memory "
                    f"limit of {_fmt_bytes(max_memory)} that qcomp-run also keeps "
                    "(--max-memory); give fewer samples "
                    f"(--verify-numerics={max(1, max_memory // need)}) or check this function "
                    "with smaller shapes")
            draws = []
            for _ in range(count):
                args = [_draw(t, rng, pool, _unranked_shape(f)) for t in arg_types]
                if any(a is None for a in args):
                    draws = []
                    break
                draws.append(args)
            if draws:
                self.inputs[f.sym_name.data] = draws
        self.reference = self._results(module)
        self.max_scale = self._max_scale(module)
        # where to point when a result changes: the input's op that computed it
        self.problem_op = None
        self._funcs = {f.sym_name.data: f for f in _functions(module)}
        self._producers = {name: _result_producers(f) for name, f in self._funcs.items()}

    def unchecked(self) -> list[tuple[func.FuncOp, str]]:
        """(function, why) for each function no sample of which ran before the passes:
        its numerics cannot be compared (an external call, an op the interpreter lacks)."""
        out = []
        for name, runs in self.reference.get("spec", {}).items():
            if runs and all(isinstance(r, str) for r in runs) and name in self._funcs:
                out.append((self._funcs[name], runs[0]))
        return out

    @staticmethod
    def _max_scale(module: ModuleOp) -> float:
        scales = [float(q.scales.max()) for q in _quant_types(module)]
        return max(scales, default=0.0)

    def _results(self, module: ModuleOp) -> dict[str, dict[str, list]]:
        """{semantics: {function: [results or error text per sample]}}."""
        out: dict[str, dict[str, list]] = {}
        funcs = {f.sym_name.data: f for f in _functions(module)}
        differ = semantics_matter(module)
        for sem in SEMANTICS:
            if sem != "spec" and not differ and "spec" in out:
                out[sem] = out["spec"]  # nothing either semantics reads differently
                continue
            per_f: dict[str, list] = {}
            for name, draws in self.inputs.items():
                f = funcs.get(name)
                if f is None:
                    per_f[name] = ["function removed"]
                    continue
                arg_types = list(f.function_type.inputs.data)
                runs = []
                for args in draws:
                    args = [_as_type(_batched(a, t), t) for a, t in zip(args, arg_types)]
                    try:
                        r = self._run(module, f, args, sem)
                    except XlaCannotRun:
                        raise
                    except Exception as e:  # noqa: BLE001 - e.g. a call to an external function
                        runs.append(f"{type(e).__name__}: {e}")
                        continue
                    runs.append(str(r.error) if r.error is not None else r.results)
                per_f[name] = runs
            out[sem] = per_f
        return out

    def _run(self, module: ModuleOp, f: func.FuncOp, args: list[np.ndarray], sem: str):
        """One run of `f` on the backend; under `xla`, also the interpreter against XLA
        on the lowered program (the first disagreement is kept in `lowered_problem`)."""
        if self.backend == "numpy":
            token = WHILE_ITERATION_LIMIT.set(WHILE_LIMIT)
            try:
                return run_function(module, f, args, semantics=sem)
            finally:
                WHILE_ITERATION_LIMIT.reset(token)
        from qcomp.backends import xla, xla_compare

        (fn,) = xla.compiled(module, sem, f.sym_name.data)
        if fn.error is not None:
            raise XlaCannotRun(f"XLA cannot run @{fn.name}: {fn.error.message}")
        if self.lowered_problem is None:
            diffs = xla_compare.compare_lowered(fn, args, sem)
            if diffs:
                self.lowered_problem = (f"the interpreter and XLA disagree on @{fn.name} lowered for "
                                        f"XLA ({sem} semantics): {diffs[0]}")
        return fn.run(args)

    def after_pass(self, p: ModulePass, module: ModuleOp) -> str | None:
        """None when `p` kept the numbers, else a message naming the difference."""
        contract = contract_of(p)
        self.lowered_problem = None
        try:
            new = self._results(module)
        except XlaCannotRun as e:
            hint = "" if "--backend numpy" in str(e) else "; use --backend numpy"
            return f"--verify-numerics --backend xla: after pass '{p.name}': {e}{hint}"
        if self.lowered_problem is not None:
            return f"--verify-numerics: after pass '{p.name}': {self.lowered_problem}"
        before = self.reference[contract.semantics]
        after = new[contract.semantics]
        tol = contract.storage_tolerance
        # a pass that introduces the quant types (an importer's QDQ ops legalized) steps
        # by the scales it introduces
        step = max(self.max_scale, self._max_scale(module)) if tol else 0.0
        message = None
        for name, runs in before.items():
            for i, (b, a) in enumerate(zip(runs, after.get(name, []))):
                found = _compare(b, a, tol, tol * step, contract.nan_payloads,
                                 contract.batched)
                if found is not None:
                    what, k = found
                    message = (f"--verify-numerics: pass '{p.name}' changed the results of "
                               f"@{name} (sample {i}, {contract.semantics} semantics): {what}")
                    self.problem_op = self._producers.get(name, {}).get(k, self._funcs.get(name))
                    break
            if message is not None:
                break
        self.reference = new
        self.max_scale = self._max_scale(module) or self.max_scale
        return message


def _result_producers(f: func.FuncOp) -> dict[int, Operation]:
    """Result index -> the op of `f` that computes it (absent for block arguments)."""
    block = f.body.blocks.first
    ret = block.last_op if block is not None else None
    if ret is None:
        return {}
    return {k: v.owner for k, v in enumerate(ret.operands) if isinstance(v.owner, Operation)}


class CannotVerify(Exception):
    """The input cannot be checked at all (`op`: where, or None)."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op


class XlaCannotRun(Exception):
    """`--backend xla` met a program XLA cannot run (nothing falls back to NumPy)."""


def _leaves(results, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], object]]:
    """(path, array) for each array of `results`, tuple results flattened in order; a
    path is the result index followed by the tuple element indices (`(1, 0)`: element 0
    of result 1)."""
    out = []
    for i, r in enumerate(results):
        here = (*path, i)
        out.extend(_leaves(r, here) if isinstance(r, tuple | list) else [(here, r)])
    return out


def _where(path: tuple[int, ...]) -> str:
    """`result 1` or, inside a tuple result, `result 1 (tuple element 0)`."""
    inner = "".join(f"[{i}]" for i in path[1:])
    return f"result {path[0]}" + (f" (tuple element {inner})" if inner else "")


def _compare(before, after, int_tol: int, float_tol: float, nan_payloads: bool = False,
             batched: bool = False) -> tuple[str, int | None] | None:
    """(what differs, the result index or None), or None when the results agree
    (`nan_payloads`: NaNs of the same float type must have the same bits; `batched`: a
    result whose leading dimension is k times the one before is k blocks, each compared
    with the result before)."""
    if isinstance(before, str):
        return None  # the interpreter could not run the program before: nothing to compare
    if isinstance(after, str):
        return f"the program ran before the pass but not after: {after}", None
    if len(before) != len(after):
        return f"{len(before)} results before, {len(after)} after", None
    before, after = _leaves(before), _leaves(after)
    if [p for p, _ in before] != [p for p, _ in after]:
        return "the results' tuple structure changed", None
    for (path, b), (_, a) in zip(before, after):
        b, a, k = np.asarray(b), np.asarray(a), path[0]
        if batched and b.ndim and b.ndim == a.ndim and b.shape[1:] == a.shape[1:] \
                and b.shape[0] and a.shape[0] > b.shape[0] and a.shape[0] % b.shape[0] == 0:
            b = np.concatenate([b] * (a.shape[0] // b.shape[0]))  # a batch of repeated samples
        if b.shape != a.shape:
            return f"{_where(path)}: shape {b.shape} before, {a.shape} after", k
        if b.dtype.kind in "iub" and a.dtype.kind in "iub":
            diff = np.abs(b.astype(np.int64) - a.astype(np.int64))
            bad = diff > int_tol
        else:
            bf, af = b.astype(np.float64), a.astype(np.float64)
            nan_b, nan_a = np.isnan(bf), np.isnan(af)
            with np.errstate(invalid="ignore"):
                close = (np.abs(bf - af) <= float_tol) | (bf == af)
            if float_tol == 0:
                close &= np.signbit(bf) == np.signbit(af)
            bad = (nan_b != nan_a) | (~nan_b & ~close)
            if nan_payloads and float_tol == 0 and b.dtype == a.dtype and b.dtype.kind == "f":
                uint = np.dtype(f"u{b.dtype.itemsize}")
                bad |= nan_b & nan_a & (b.view(uint) != a.view(uint))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            return (f"{_where(path)} at index {list(idx)}: {_show(b[idx])} before, {_show(a[idx])} "
                    f"after ({int(bad.sum())} of {bad.size} elements differ)"), k
    return None


def _show(x: np.ndarray) -> str:
    """An element as its repr, a NaN with its bits (`nan (0x7fc00001)`)."""
    if x.dtype.kind == "f" and np.isnan(x):
        return f"nan ({int(x.view(np.dtype(f'u{x.dtype.itemsize}'))):#0{2 + 2 * x.dtype.itemsize}x})"
    return repr(x.item())
