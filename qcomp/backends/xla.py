"""The xla backend: qcomp's lowered program compiled by XLA through jaxlib's PJRT client.

    from qcomp.backends import xla
    runs = xla.run(module, {"arg0": x}, semantics="spec", device="cpu")  # list[FunctionRun]
    fns = xla.compile_module(module, semantics="spec")                 # compile once ...
    fns[0].run([x])                                                    # ... run many times

What happens (`qcomp.backends.xla_prepare` has the module-side steps):

1. every entry function (as `qcomp.interpreter.run` chooses them) is checked for ops
   XLA cannot take (a `RunError` at the op: tosa, quant, arith, math, unregistered
   ops, custom_calls that are not checks, checks inside control flow);
2. the module is lowered with the pipeline of `--semantics` (`spec`:
   `stablehlo-legalize-quant-to-math{rescale=float},canonicalize,cse`; `stablehlo`:
   `{rescale=stablehlo}`), each entry put in a module of its own as `@main` with its
   check operands as extra results, and printed in qcomp's pretty form;
3. jaxlib's MLIR parses the text (a rejection is an error naming the pipeline), XLA's
   CPU (or GPU) backend compiles it once per printed program and device, with the HLO
   pass `algsimp` disabled: XLA's algebraic simplifier rewrites `x / c` with a constant
   `c` as `x * (1 / c)`, which is not the same float and moves quantized values that
   sit next to a rounding tie;
4. on the CPU, a large program (`xla_clients.ONE_THREAD_WORK`) with no checks, whose
   samples `set-batch-size` proves independent, is compiled at `1 / k` of its batch
   instead and run as `k` slices at once, one per core, each on a one-thread client
   (`batch_slices`; `xla_clients`), the results concatenated: the same bits, since
   every sample goes through the same ops;
5. a run converts the inputs to the lowered argument types (quantized arguments as
   their storage integers, `i4` as `ml_dtypes.int4`), executes, converts the results
   back to the interpreter's NumPy types and judges the checks on the host with the
   interpreter's own rule (`qcomp.interpreter.checks.judge_check`).

Needs jax and jaxlib (`pip install 'qcomp[xla]'`); the calls used are jax's private
`jax._src` modules (REFERENCE.md §8), tested with jax 0.10.
"""

from __future__ import annotations

import functools
import hashlib
import time
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import ml_dtypes
import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, Signedness
from xdsl.ir import Attribute, Operation

from qcomp.backends import xla_clients, xla_dots, xla_prepare
from qcomp.interpreter import FunctionRun, RunError, entry_functions
from qcomp.interpreter.checks import judge_check
from qcomp.interpreter.runner import _inputs_for
from qcomp.interpreter.values import check_input, element_type, numpy_dtype, quant_of, to_type
from qcomp.ir import print_module

INSTALL_HINT = "pip install 'qcomp[xla]'"
_CACHE_SIZE = 32


class XlaUnavailable(RunError):
    """jax/jaxlib cannot be imported (or lack the calls the backend uses)."""


@dataclass
class _Jax:
    jax: Any
    ir: Any
    jmlir: Any
    xla_bridge: Any
    xc: Any


_JAX: _Jax | None = None


def load_jax() -> _Jax:
    """jax's modules, imported once; `XlaUnavailable` with the install command otherwise."""
    global _JAX
    if _JAX is None:
        try:
            import jax
            from jax._src import xla_bridge
            from jax._src.interpreters import mlir as jmlir
            from jax._src.lib import xla_client as xc
            from jax._src.lib.mlir import ir
        except Exception as e:  # noqa: BLE001 - any import failure means "not installed"
            raise XlaUnavailable(f"the xla backend needs jax and jaxlib ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0] if str(e) else ''}); install them with: "
                                 f"{INSTALL_HINT}") from None
        if not hasattr(jmlir, "module_to_bytecode") or not hasattr(jax, "enable_x64"):
            raise XlaUnavailable(f"the xla backend needs jax >= 0.10 (found {jax.__version__}); "
                                 f"install it with: {INSTALL_HINT}")
        _JAX = _Jax(jax, ir, jmlir, xla_bridge, xc)
    return _JAX


def is_available() -> bool:
    try:
        load_jax()
    except XlaUnavailable:
        return False
    return True


def get_device(name: str = "cpu", one_thread: bool = False, slot: int = 0):
    """(PJRT client, device) for `cpu`, `gpu`, `cuda`, `rocm`, ... optionally `:index`;
    `one_thread`: the CPU client with a one-thread pool where there is one
    (`xla_clients`; the `slot`-th such client), for `cpu` / `cpu:0`."""
    jx = load_jax()
    platform, _, index = name.partition(":")
    if one_thread and platform == "cpu" and index in ("", "0"):
        get_device(name)  # jax's client first: its errors, its flags
        client = xla_clients.one_thread_client_at(jx.xc.make_cpu_client, slot)
        if client is not None:
            return client, client.local_devices()[0]
    try:
        client = jx.xla_bridge.get_backend(platform)
    except Exception as e:  # noqa: BLE001 - jax raises RuntimeError with its own words
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        hint = " (a GPU needs jax's CUDA plugin: pip install 'jax[cuda12]')" if platform in ("gpu", "cuda") else ""
        raise RunError(f"no PJRT device '{name}' in jaxlib: {first}{hint}") from None
    devices = client.local_devices()
    try:
        i = int(index) if index else 0
        return client, devices[i]
    except (ValueError, IndexError):
        raise RunError(f"no PJRT device '{name}': {platform} has {len(devices)} device(s)") from None


_EXECUTABLES: OrderedDict[tuple[str, str], Any] = OrderedDict()

CPU_OPTIONS = {"xla_cpu_prefer_vector_width": "512"}
"""XLA options of every CPU compilation (`CompileOptions.env_option_overrides`, what
`XLA_FLAGS` would set): 512-bit vectors where the CPU has them (AVX-512; XLA's default
is 256), which ran the int8 MobileNetV2's fixed-point rescale chains (i64 / f64 lanes)
and depthwise sums about 1.3x faster at batch 64 (docs/benchmarks.md). Vector width
changes no element-wise result."""


def _remember(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def compile_text(text: str, device: str = "cpu", one_thread: bool = False, slot: int = 0) -> Any:
    """XLA's loaded executable for the MLIR `text` (`@main`), cached per text and device
    (`one_thread`: for `get_device(device, one_thread=True, slot=slot)`'s client)."""
    key = (hashlib.sha256(text.encode()).hexdigest(), device, one_thread, slot)
    exe = _EXECUTABLES.get(key)
    if exe is not None:
        _EXECUTABLES.move_to_end(key)
        return exe
    jx = load_jax()
    client, dev = get_device(device, one_thread, slot)
    with jx.jmlir.make_ir_context(), jx.ir.Location.unknown():
        try:
            mod = jx.ir.Module.parse(text)
        except Exception as e:  # noqa: BLE001 - MLIRError carries the diagnostics
            raise RunError(f"jaxlib's MLIR rejects the lowered program: {_one_line(e)}") from None
        code = jx.jmlir.module_to_bytecode(mod)
    options = jx.xc.CompileOptions()
    if dev.platform == "cpu":
        options.env_option_overrides = list(CPU_OPTIONS.items())
    try:
        exe = client.compile_and_load(code, jx.xc.DeviceList((dev,)), options)
    except Exception as e:  # noqa: BLE001 - XlaRuntimeError and friends
        raise RunError(f"XLA cannot compile the lowered program: {_one_line(e)}") from None
    _remember(_EXECUTABLES, key, exe)
    return exe


def _one_line(e: Exception) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return "; ".join(lines[:3]) if lines else type(e).__name__


_NARROW = {(4, True): ml_dtypes.int4, (4, False): ml_dtypes.uint4,
           (2, True): getattr(ml_dtypes, "int2", None), (2, False): getattr(ml_dtypes, "uint2", None)}


def device_dtype(t: Attribute) -> np.dtype:
    """The NumPy dtype XLA exchanges values of (lowered) type `t` in: the interpreter's,
    except integers narrower than 8 bits (`i4` → `ml_dtypes.int4`)."""
    e = element_type(t)
    if isinstance(e, IntegerType) and 1 < e.width.data < 8:
        dt = _NARROW.get((e.width.data, e.signedness.data != Signedness.UNSIGNED))
        if dt is None:
            raise RunError(f"XLA has no {e} arrays")
        return np.dtype(dt)
    return numpy_dtype(e)


def _host(value, want: np.dtype) -> np.ndarray:
    """An XLA result as the interpreter holds it (`want`: the original type's dtype)."""
    a = np.asarray(value)
    return a if a.dtype == want else a.astype(want)


@dataclass
class XlaFunction:
    """One entry function compiled by XLA (or the error that stopped its compilation)."""

    unsigned_dots: ClassVar[bool] = True
    """Whether the engine takes int8 dot_generals in XLA's VNNI form (`xla_dots`)."""
    name: str
    function: func.FuncOp
    """The function in the module given to `compile_module` (locations, types)."""
    device: str = "cpu"
    one_thread: bool = False
    """Compiled for, and run on, the one-thread CPU client (`xla_clients`: a small program)."""
    executable: Any = None
    slices: BatchSlices | None = None
    """Set instead of `executable` when the program runs as slices of its batch."""
    error: RunError | None = None
    text: str = ""
    """The MLIR XLA compiled."""
    prepared: ModuleOp | None = None
    """That program as IR (`text` is it printed): what `xla_compare.compare_lowered`
    interprets, without parsing `text` again on every input."""
    arg_dtypes: list[np.dtype] = field(default_factory=list)
    checks: list[Operation] = field(default_factory=list)
    check_arity: list[int] = field(default_factory=list)
    verdicts: list[tuple[int, int]] = field(default_factory=list)
    constants: list[np.ndarray] = field(default_factory=list)
    """Trailing arguments of the compiled `@main` (the hoisted float constants)."""
    _constant_buffers: list[Any] | None = None
    n_results: int = 0
    main_arg_types: list[Attribute] = field(default_factory=list)
    main_result_types: list[Attribute] = field(default_factory=list)
    lower_seconds: float = 0.0
    compile_seconds: float = 0.0
    work: int = 0
    """The prepared program's estimated operation count (`xla_clients.work`)."""

    @property
    def result_types(self) -> list[Attribute]:
        return list(self.function.function_type.outputs.data)

    def run(self, inputs: Sequence[np.ndarray] = (), launched: list | None = None) -> FunctionRun:
        """Execute once (or wait for the run `launch(inputs)` returned as `launched`);
        errors are captured in the FunctionRun, never raised."""
        out = FunctionRun(self.name, result_types=self.result_types)
        if self.error is not None:
            out.error = self.error
            return out
        try:
            outs = self._execute(inputs) if launched is None else self._wait(launched)
            out.results = [_host(v, numpy_dtype(quant_of(t) or element_type(t)))
                           for v, t in zip(outs[:self.n_results], self.result_types)]
        except RunError as e:
            out.error = e
            return out
        except MemoryError as e:
            out.error = RunError(f"out of host memory for the results of @{self.name}: "
                                 f"{_one_line(e)}", self.function)
            return out
        pos = self.n_results
        for c, n in zip(self.checks, self.check_arity):
            vals = [_host(v, numpy_dtype(quant_of(o.type) or element_type(o.type)))
                    for v, o in zip(outs[pos:pos + n], c.operands)]
            pos += n
            try:
                out.checks.append(judge_check(c, vals))
            except RunError as e:
                e.op = e.op or c
                out.error = e
                break
        for i, k in self.verdicts:
            if k < len(out.checks):
                out.results[i] = np.array(out.checks[k].passed)
        return out

    def lowered_inputs(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The arguments of the compiled `@main` for `inputs`, as the interpreter holds
        them: storage integers of the lowered types, then the trailing constants."""
        arg_types = self.function.function_type.inputs.data
        main_types = self.main_arg_types
        return [to_type(check_input(a, t, f"arg{i}").astype(np.int64)
                        if numpy_dtype(element_type(m)).kind in "iu" else check_input(a, t, f"arg{i}"),
                        element_type(m))
                for i, (a, t, m) in enumerate(zip(inputs, arg_types, main_types))] + list(self.constants)

    def raw_outputs(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every result of the compiled `@main` (the check operands included), in the
        interpreter's dtypes of the lowered types."""
        return [_host(v, numpy_dtype(element_type(t)))
                for v, t in zip(self._execute(inputs), self.main_result_types)]

    def _execute(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self._wait(self.launch(inputs))

    def launch(self, inputs: Sequence[np.ndarray]) -> list:
        """Start a run on `inputs` and return its result buffers without waiting (PJRT
        executes asynchronously, outside the GIL): `run(inputs, launched=them)` waits.
        RunError on bad inputs, or when XLA refuses them (PJRT checks each argument's
        shape and type against the executable's)."""
        arg_types = self.function.function_type.inputs.data
        if len(inputs) != len(arg_types):
            raise RunError(f"@{self.name} takes {len(arg_types)} arguments, {len(inputs)} inputs given",
                           self.function)
        load_jax()
        _, dev = get_device(self.device, self.one_thread)
        args = [np.ascontiguousarray(check_input(a, t, f"arg{i}")).astype(dt, copy=False)
                for i, (a, t, dt) in enumerate(zip(inputs, arg_types, self.arg_dtypes))]
        try:  # RESOURCE_EXHAUSTED can come from any step: copies in, the run, copies out
            if self.slices is not None:
                return self.slices.launch(args)
            bufs = [_put(a, dev) for a in args]
            if self._constant_buffers is None:
                self._constant_buffers = [_put(c, dev) for c in self.constants]
            return self.executable.execute(bufs + self._constant_buffers)
        except Exception as e:  # noqa: BLE001 - a runtime failure inside XLA, out of memory
            raise RunError(f"XLA failed running @{self.name}: {_one_line(e)}", self.function) from None

    def _wait(self, launched: list) -> list[np.ndarray]:
        try:
            if self.slices is not None:
                return self.slices.wait(launched)
            return [np.asarray(o) for o in launched]
        except Exception as e:  # noqa: BLE001 - a runtime failure inside XLA, out of memory
            raise RunError(f"XLA failed running @{self.name}: {_one_line(e)}", self.function) from None


BATCH_SLICES = True
"""Whether `compile_module` may run a large program as slices of its batch (module
docstring, 4; tests and benchmarks compare the two)."""


@dataclass
class BatchSlices:
    """A program run as `k = len(executables)` slices of its batch of `B` samples at
    once: `part` is the program at batch `B / k` (`set-batch-size`), compiled on `k`
    one-thread clients; slice `s` of every argument (rows `s B / k` to `(s + 1) B / k`
    of dimension 0) goes to the `s`-th, and each result is the slices' results
    concatenated along dimension 0."""

    part: XlaFunction
    executables: list[Any]
    devices: list[Any]
    constant_buffers: list[list[Any]] | None = None

    def launch(self, args: Sequence[np.ndarray]) -> list[list[Any]]:
        """Start every slice's run on `args` (the whole batch, in the lowered types)."""
        if self.constant_buffers is None:
            self.constant_buffers = [[_put(c, d) for c in self.part.constants]
                                     for d in self.devices]
        step = args[0].shape[0] // len(self.executables)
        return [exe.execute([_put(np.ascontiguousarray(a[s * step:(s + 1) * step]), dev)
                             for a in args] + consts)
                for s, (exe, dev, consts) in enumerate(
                    zip(self.executables, self.devices, self.constant_buffers))]

    @staticmethod
    def wait(launched: list[list[Any]]) -> list[np.ndarray]:
        """Each result, its slices concatenated in order."""
        return [np.concatenate([np.asarray(part[i]) for part in launched])
                for i in range(len(launched[0]))]


def batch_slices(module: ModuleOp, semantics: str, fn: XlaFunction, device: str
                 ) -> BatchSlices | None:
    """`fn` (prepared, not yet compiled) as slices of its batch (`BatchSlices`), or None
    where it cannot be: not on the CPU's first device, a small program (one thread
    whole), checks, arguments without one common static leading dimension `B`, `B` not
    divisible by the cores (`xla_clients.slice_count`), or an op `set-batch-size`
    cannot rebatch."""
    from qcomp.passes.set_batch_size import leading_batch, rebatched

    if not BATCH_SLICES or device not in ("cpu", "cpu:0") or fn.one_thread or fn.checks:
        return None
    b = leading_batch(fn.function)
    k = 1 if b is None else xla_clients.slice_count(b)
    if b is None or k < 2:
        return None
    jx = load_jax()
    clients = [xla_clients.one_thread_client_at(jx.xc.make_cpu_client, s) for s in range(k)]
    if any(c is None for c in clients):
        return None
    small = rebatched(module, b // k)
    if small is None:  # an op that does not allow it: the program runs whole
        return None
    (part,) = prepare_entries(small, semantics, fn.name, device, XlaFunction,
                              lambda p: None, lambda p: "")
    if part.error is not None or part.checks or part.n_results != fn.n_results:
        return None
    try:
        executables = [compile_text(part.text, device, True, s) for s in range(k)]
    except RunError:  # XLA refuses the smaller program: the whole one says why, if it does
        return None
    return BatchSlices(part, executables, [c.local_devices()[0] for c in clients])


def _put(a: np.ndarray, dev) -> Any:
    """`a` copied to `dev` as is (f64 / i64 stay 64-bit): jax's own host-to-device step
    (`pxla.batched_device_put`, what `jax.device_put` ends in; a tenth of its time on a
    small input), its abstract value and sharding made once per shape, dtype and device
    (`_placement`: 25 -> 11.5 us a put of a 12 KB input)."""
    from jax._src.interpreters import pxla

    aval, sharding = _placement(a.shape, a.dtype, dev)
    return pxla.batched_device_put(aval, sharding, [a], [dev], True, enable_x64=True)


@functools.lru_cache(maxsize=256)
def _placement(shape: tuple[int, ...], dtype: np.dtype, dev) -> tuple[Any, Any]:
    """The `ShapedArray` and `SingleDeviceSharding` of an input put on `dev`."""
    from jax._src import core
    from jax.sharding import SingleDeviceSharding

    return core.ShapedArray(shape, dtype), SingleDeviceSharding(dev)


def compile_module(module: ModuleOp, semantics: str = "spec", entry: str | None = None,
                   device: str = "cpu") -> list[XlaFunction]:
    """Compile each entry function of `module` (module docstring). Per-function problems
    (unsupported ops, rejected programs) are in `XlaFunction.error`; a missing entry
    raises RunError, missing jax `XlaUnavailable`."""
    load_jax()
    get_device(device)

    def build(fn: XlaFunction) -> None:
        fn.slices = batch_slices(module, semantics, fn, device)
        if fn.slices is None:
            fn.executable = compile_text(fn.text, device, fn.one_thread)

    def where(fn: XlaFunction) -> str:
        culprit = blame(module, semantics, fn.name, device)
        return (f"produced by {culprit}" if culprit else
                f"the program lowered by {xla_prepare.LOWERING[semantics]}")
    return prepare_entries(module, semantics, entry, device, XlaFunction, build, where)


def prepare_entries(module: ModuleOp, semantics: str, entry: str | None, device: str,
                    make: type[XlaFunction], build, where) -> list:
    """Each entry function of `module` as a `make` (XlaFunction or a subclass), its
    program prepared by `xla_prepare` and printed, then `build(fn)` (the engine's
    compilation, setting `fn.executable`). A RunError without an op gets `where(fn)`
    (who produced the rejected program) appended and lands in `fn.error`."""
    funcs = entry_functions(module, entry)
    out = [make(f.sym_name.data, f, device) for f in funcs]
    todo = []
    for fn in out:
        fn.error = xla_prepare.unsupported_op(module, fn.function)
        if fn.error is None:
            todo.append(fn)
    if not todo:
        return out
    t0 = time.perf_counter()
    try:
        lowered = xla_prepare.lower(module, semantics)
    except RunError as e:
        for fn in todo:
            fn.error = e if e.op is not None else RunError(e.message, fn.function)
        return out
    lower_s = time.perf_counter() - t0
    on_cpu = device.partition(":")[0] == "cpu"
    for fn in todo:
        t0 = time.perf_counter()
        try:
            prepared = xla_prepare.for_entry(lowered, fn.name, semantics, unsigned_dots=(
                make.unsigned_dots and on_cpu and xla_dots.host_has_vnni()))
            fn.text = print_module(prepared.module)
            fn.prepared = prepared.module
            main = next(op for op in prepared.module.ops if isinstance(op, func.FuncOp)
                        and op.sym_name.data == "main")
            fn.work = xla_clients.work(main)
            fn.one_thread = on_cpu and fn.work < xla_clients.ONE_THREAD_WORK
            fn.main_result_types = list(main.function_type.outputs.data)
            n_args = len(main.function_type.inputs.data) - len(prepared.constants)
            fn.main_arg_types = list(main.function_type.inputs.data[:n_args])
            fn.arg_dtypes = [device_dtype(t) for t in main.function_type.inputs.data[:n_args]]
            fn.checks = xla_prepare.entry_checks(fn.function)
            fn.check_arity = prepared.check_arity
            fn.n_results = prepared.n_results
            fn.verdicts = prepared.verdicts
            fn.constants = prepared.constants
            if len(fn.checks) != len(fn.check_arity):
                raise RunError(f"internal error: {len(fn.checks)} checks before lowering, "
                               f"{len(fn.check_arity)} after", fn.function)
            fn.lower_seconds = lower_s + (time.perf_counter() - t0)
            t0 = time.perf_counter()
            build(fn)
            fn.compile_seconds = time.perf_counter() - t0
        except RunError as e:
            if e.op is None:
                e = RunError(f"{e.message} ({where(fn)})", fn.function)
            fn.error = e
    return out


def rejected(text: str, device: str = "cpu") -> str | None:
    """Why XLA (jaxlib's MLIR parser, then the compiler) rejects `text`, or None."""
    try:
        compile_text(text, device)
    except RunError as e:
        return e.message
    return None


def blame(module: ModuleOp, semantics: str, entry: str, device: str = "cpu") -> str | None:
    """Who produced a program XLA rejects: `the input program` when XLA rejects the
    input already (possible only without quantized types), else the first pass of the
    lowering pipeline whose output (as the backend prints it for `entry`) XLA rejects;
    None when every one is accepted."""
    from qcomp.registry import make_context

    copy = module.clone()
    if not any(quant_of(v.type) for op in copy.walk() for v in op.results):
        try:
            if rejected(print_module(xla_prepare.for_entry(copy, entry, semantics).module), device):
                return "the input program"
        except RunError:
            pass
    ctx = make_context()
    for p in xla_prepare.lowering_passes(semantics):
        p.apply(ctx, copy)
        try:
            text = print_module(xla_prepare.for_entry(copy, entry, semantics).module)
        except RunError:
            continue
        if rejected(text, device) is not None:
            return f"pass {p.name}"
    return None


_COMPILED: OrderedDict[tuple, list[XlaFunction]] = OrderedDict()
_BY_MODULE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _fingerprint(module: ModuleOp) -> tuple:
    """Changes whenever the module does: every op, its operands, attributes, properties
    and result types by identity (xDSL attributes are immutable, so an edit replaces
    the object)."""
    return tuple((id(op), op.name, tuple(id(v) for v in op.operands),
                  tuple((k, id(v)) for k, v in op.properties.items()),
                  tuple((k, id(v)) for k, v in op.attributes.items()),
                  tuple(id(r.type) for r in op.results)) for op in module.walk())


def compiled(module: ModuleOp, semantics: str = "spec", entry: str | None = None,
             device: str = "cpu") -> list[XlaFunction]:
    """`compile_module`, cached: per module object while it is unchanged (a walk, no
    printing), else per printed module, semantics, entry and device."""
    key = (semantics, entry, device)
    fp = _fingerprint(module)
    mine = _BY_MODULE.setdefault(module, {})
    hit = mine.get(key)
    if hit is not None and hit[0] == fp:
        return hit[1]
    text_key = (hashlib.sha256(print_module(module).encode()).hexdigest(), *key)
    fns = _COMPILED.get(text_key)
    if fns is None or not all(fn.function.parent_op() is module for fn in fns):
        fns = compile_module(module, semantics, entry, device)
        _remember(_COMPILED, text_key, fns)
    else:
        _COMPILED.move_to_end(text_key)
    mine[key] = (fp, fns)
    return fns


def run(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
        semantics: str = "spec", entry: str | None = None, device: str = "cpu") -> list[FunctionRun]:
    """`qcomp.interpreter.run` on XLA: the same entry functions, inputs, results and checks."""
    return [fn.run(_inputs_for(fn.function, inputs)) for fn in compiled(module, semantics, entry, device)]
