"""The iree backend: qcomp's lowered program compiled by IREE for the host CPU.

    import qcomp
    prog = qcomp.compile(module, backend="iree")       # lowers, compiles (or reads the cache)
    runs = prog.run({"arg0": x})                         # list[FunctionRun]
    qcomp-run model.mlir --inputs in.npz --backend iree

The program IREE gets is the one the xla backend prepares (`qcomp.backends.xla_prepare`,
`qcomp.backends.xla.prepare_entries`): lowered for `--semantics`, one `@main` per entry
with the check operands as extra results, the float constants hoisted to trailing
arguments, depthwise integer convolutions as sums of strided slices and short integer
contractions as exact float ones (`qcomp.backends.xla_contractions`; IREE 3.13
miscompiles the i8 depthwise convolution, docs/benchmarks.md). It is compiled with

    iree-compile --iree-input-type=stablehlo FLAGS

(`FLAGS`: `llvm-cpu` for the host's CPU features, no demotion of i64 / f64, data
tiling), run by `iree.runtime` on the `local-task` driver, and the checks are judged on
the host as the xla backend does.

Compiling is slow (minutes for a MobileNetV2), so the VM flatbuffer (`.vmfb`) is kept:
per handle, per process (the program's hash), and on disk in `cache_dir()`
(`$XDG_CACHE_HOME/qcomp/iree`, else `~/.cache/qcomp/iree`) under the SHA-256 of the
IREE version, the flags, the host CPU and the program text, written whole (a temporary
file renamed) so an interrupted compile leaves nothing half-written.

Needs `iree-base-compiler` and `iree-base-runtime` (`pip install 'qcomp[iree]'`),
tested with 3.13; imported only when this backend is used.
"""

from __future__ import annotations

import hashlib
import os
import platform
import tempfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from qcomp.backends import xla_prepare
from qcomp.backends.xla import XlaFunction, prepare_entries
from qcomp.interpreter import FunctionRun, RunError
from qcomp.interpreter.runner import _inputs_for
from qcomp.interpreter.values import check_input

INSTALL_HINT = "pip install 'qcomp[iree]'"
FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-input-demote-i64-to-i32=false",
    "--iree-input-demote-f64-to-f32=false",
    "--iree-dispatch-creation-data-tiling",
)
"""iree-compile's flags after `--iree-input-type=stablehlo`. Data tiling (packed operand
layouts for the contractions) makes the int8 MLP of tools/bench_workloads.py 4-11x
faster and leaves MobileNetV2 as it was (docs/benchmarks.md)."""
DRIVER = "local-task"


class IreeUnavailable(RunError):
    """iree-base-compiler / iree-base-runtime cannot be imported."""


@dataclass
class _Iree:
    compiler: Any
    runtime: Any
    version: str
    config: Any = None
    """The runtime's `local-task` device and VM instance, made on the first run."""


_IREE: _Iree | None = None


def load_iree() -> _Iree:
    """IREE's compiler and runtime, imported once; `IreeUnavailable` otherwise."""
    global _IREE
    if _IREE is None:
        try:
            import iree.compiler as compiler  # pyright: ignore[reportMissingImports] (an extra)
            import iree.compiler.version as compiler_version  # pyright: ignore[reportMissingImports] (an extra)
            import iree.runtime as runtime  # pyright: ignore[reportMissingImports] (an extra)
        except Exception:  # noqa: BLE001 - any import failure means "not installed"
            raise IreeUnavailable(f"--backend iree needs the iree extra: {INSTALL_HINT}") from None
        _IREE = _Iree(compiler, runtime, compiler_version.VERSION)
    return _IREE


def is_available() -> bool:
    try:
        load_iree()
    except IreeUnavailable:
        return False
    return True


def cache_dir() -> Path:
    """Where compiled programs are kept: `$XDG_CACHE_HOME/qcomp/iree` (`~/.cache` when
    unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qcomp" / "iree"


def _host_cpu() -> str:
    """What `--iree-llvmcpu-target-cpu=host` compiles for: the CPU's model and flags."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine() + platform.processor()
    first = info.split("\n\n", 1)[0]
    keep = ("vendor_id", "cpu family", "model", "model name", "flags", "Features", "CPU part")
    return "\n".join(ln for ln in first.splitlines() if ln.split(":", 1)[0].strip() in keep)


def cache_key(text: str) -> str:
    """SHA-256 of the IREE version, the flags, the host CPU and the program text."""
    h = hashlib.sha256()
    for part in (load_iree().version, " ".join(FLAGS), _host_cpu(), text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


_VMFB: OrderedDict[str, bytes] = OrderedDict()
_CACHE_SIZE = 32


def _invoke_compiler(text: str) -> bytes:
    """iree-compile on `text` (a RunError with IREE's first error line when it fails)."""
    iree = load_iree()
    try:
        return iree.compiler.compile_str(text, input_type="stablehlo", extra_args=list(FLAGS))
    except Exception as e:  # noqa: BLE001 - CompilerToolError carries iree-compile's stderr
        lines = [ln.strip() for ln in str(e).splitlines() if "error:" in ln]
        first = lines[0] if lines else (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise RunError(f"IREE cannot compile the lowered program: {first}") from None


def compile_text(text: str) -> bytes:
    """The `.vmfb` of the MLIR `text` (`@main`): from this process's cache, the disk
    cache, or iree-compile (then stored in both)."""
    key = cache_key(text)
    vmfb = _VMFB.get(key)
    if vmfb is None:
        path = cache_dir() / f"{key}.vmfb"
        try:
            vmfb = path.read_bytes()
        except OSError:
            vmfb = _invoke_compiler(text)
            _store(path, vmfb)
    _VMFB[key] = vmfb
    _VMFB.move_to_end(key)
    while len(_VMFB) > _CACHE_SIZE:
        _VMFB.popitem(last=False)
    return vmfb


def _store(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole (a temporary file renamed), or not at all when the
    cache directory cannot be written (the cache is an optimisation)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _config():
    iree = load_iree()
    if iree.config is None:
        iree.config = iree.runtime.Config(DRIVER)
    return iree.config


def _first_line(e: Exception) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


class IreeFunction(XlaFunction):
    """One entry function compiled by IREE (`executable`: the runtime's `main`)."""

    unsigned_dots: ClassVar[bool] = False
    """IREE 3.13 takes a `ui8` dot_general operand as signed (`qcomp.backends.xla_dots`)."""
    vmfb: bytes = b""

    def load(self, vmfb: bytes) -> None:
        """Load the compiled module in a runtime context of its own."""
        rt = load_iree().runtime
        config = _config()
        try:
            vm = rt.VmModule.copy_buffer(config.vm_instance, vmfb)
            context = rt.SystemContext(config=config, vm_modules=[vm])
            self.executable = context.modules[vm.name]["main"]
        except Exception as e:  # noqa: BLE001 - a flatbuffer the runtime rejects
            raise RunError(f"IREE's runtime cannot load the compiled program: {_first_line(e)}"
                           ) from None
        self.vmfb = vmfb
        self._constant_buffers = [rt.asdevicearray(config.device, c) for c in self.constants]

    def _execute(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        arg_types = self.function.function_type.inputs.data
        if len(inputs) != len(arg_types):
            raise RunError(f"@{self.name} takes {len(arg_types)} arguments, {len(inputs)} inputs given",
                           self.function)
        args = [np.ascontiguousarray(check_input(a, t, f"arg{i}")).astype(dt, copy=False)
                for i, (a, t, dt) in enumerate(zip(inputs, arg_types, self.arg_dtypes))]
        try:
            outs = self.executable(*args, *(self._constant_buffers or ()))
            if outs is None:
                return []
            if not isinstance(outs, (tuple, list)):
                outs = (outs,)
            return [o.to_host() if hasattr(o, "to_host") else np.asarray(o) for o in outs]
        except Exception as e:  # noqa: BLE001 - a runtime failure inside IREE
            raise RunError(f"IREE failed running @{self.name}: {_first_line(e)}",
                           self.function) from None


def compile_module(module: ModuleOp, semantics: str = "spec", entry: str | None = None
                   ) -> list[IreeFunction]:
    """Compile each entry function of `module` (module docstring); per-function problems
    are in `IreeFunction.error`, a missing IREE raises `IreeUnavailable`."""
    load_iree()

    def build(fn: IreeFunction) -> None:
        fn.load(compile_text(fn.text))

    def where(fn: IreeFunction) -> str:
        return f"the program lowered by {xla_prepare.LOWERING[semantics]}"
    out = prepare_entries(module, semantics, entry, "cpu", IreeFunction, build, where)
    for fn in out:  # the shared preparation's refusals name the xla backend
        if fn.error is not None and fn.error.message.startswith("the xla backend "):
            fn.error = RunError("the iree backend " + fn.error.message[len("the xla backend "):],
                                fn.error.op)
    return out


def run(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
        semantics: str = "spec", entry: str | None = None) -> list[FunctionRun]:
    """`qcomp.interpreter.run` on IREE (compiled anew, or read from the caches)."""
    return [fn.run(_inputs_for(fn.function, inputs)) for fn in compile_module(module, semantics, entry)]


__all__ = ["FLAGS", "INSTALL_HINT", "IreeFunction", "IreeUnavailable", "cache_dir", "cache_key",
           "compile_module", "compile_text", "is_available", "load_iree", "run"]
