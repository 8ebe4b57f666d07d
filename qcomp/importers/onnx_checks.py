"""What an `.onnx` graph must be before ONNX's shape inference may see it, and the
checks the importer makes of `com.microsoft` nodes (their schemas are onnxruntime's,
which the onnx package does not have).

ONNX's C++ shape inference trusts its input: names that are not UTF-8 come back as
Python `bytes` (and its own messages as undecodable text), and a graph whose nodes use
values before they are made can abort the process. So, before it runs:

- every name (graph, node, op type, domain, value, attribute, initializer, opset
  domain) is valid UTF-8;
- the nodes are in topological order: each input is a graph input, an initializer or
  an output of an earlier node, and no value is made twice (ONNX's own rule, which
  `onnx.checker` states; onnx-mlir's importer relies on it too).

Each problem is an `OnnxImportError` naming the node (`node 'n' (Relu): ...`).

What the checks do not foresee cannot take qcomp down either: `isolated` runs shape
inference in a forked child (where the OS allows), and a child killed by a signal
(onnx's C++ `Assertion ... failed`, SIGABRT) is a diagnostic, not a crash.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys


class OnnxImportError(Exception):
    """A model that cannot be imported (the message is the whole diagnostic)."""


def _text(v) -> str:
    """A protobuf string field as text (proto2 gives `bytes` when it is not UTF-8)."""
    return v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else v


def node_label(node, index: int) -> str:
    name = _text(node.name)
    return f"node '{name or f'#{index}'}' ({_text(node.op_type)})"


def _utf8(v, what: str) -> None:
    if isinstance(v, bytes):
        raise OnnxImportError(f"{what} '{_text(v)}' is not valid UTF-8")


def check_names(model) -> None:
    """Every name in the model is valid UTF-8 (module docstring)."""
    g = model.graph
    _utf8(g.name, "the graph's name")
    for o in model.opset_import:
        _utf8(o.domain, "opset domain")
    for what, infos in (("graph input", g.input), ("graph output", g.output),
                        ("value_info", g.value_info)):
        for vi in infos:
            _utf8(vi.name, f"{what} name")
    for t in g.initializer:
        _utf8(t.name, "initializer name")
    for index, node in enumerate(g.node):
        label = f"node '#{index}'"
        _utf8(node.name, f"{label}: its name")
        label = node_label(node, index)
        _utf8(node.op_type, f"{label}: its op type")
        _utf8(node.domain, f"{label}: its domain")
        for v in (*node.input, *node.output):
            _utf8(v, f"{label}: value name")
        for a in node.attribute:
            _utf8(a.name, f"{label}: attribute name")


def check_order(model) -> None:
    """The nodes are in topological order and make each value once (module docstring)."""
    g = model.graph
    known = {vi.name for vi in g.input} | {t.name for t in g.initializer}
    for index, node in enumerate(g.node):
        label = node_label(node, index)
        for name in node.input:
            if name and name not in known:
                raise OnnxImportError(f"{label}: input '{name}' is not defined before it "
                                      "(ONNX graphs list their nodes in topological order)")
        for name in node.output:
            if name in known:
                raise OnnxImportError(f"{label}: output '{name}' is already defined "
                                      "(each value is made once)")
            if name:
                known.add(name)


def inference_message(e: Exception) -> str:
    """The text of an exception from ONNX's shape inference, as UTF-8 text (a message
    pybind11 could not decode is its bytes, invalid ones escaped)."""
    if isinstance(e, UnicodeDecodeError) and isinstance(e.object, bytes):
        return e.object.decode("utf-8", "backslashreplace").strip()
    return str(e).strip()


def fork_safe() -> bool:
    """Whether a forked child can run shape inference: not once JAX (whose runtime
    threads hold locks a child would inherit) is loaded."""
    return "jaxlib" not in sys.modules and "jax" not in sys.modules


def isolated(infer, model):
    """`infer(model)` (a ModelProto -> ModelProto function: ONNX's shape inference) run
    in a forked child: its result, or a `RuntimeError` with the text of the exception it
    raised; `OnnxImportError` when the child dies by a signal. In-process where there is
    no `os.fork`, or once JAX is loaded (`--backend xla`): a child forked from JAX's
    threads could deadlock on a lock one of them held (OpenBLAS's threads, which NumPy
    starts, are fork-safe)."""
    if not hasattr(os, "fork") or not fork_safe():
        return infer(model)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no Python cleanup, only the answer on the pipe
        try:
            os.close(read_end)
            devnull = os.open(os.devnull, os.O_WRONLY)  # an abort's own text stays out
            os.dup2(devnull, 2)                          # of qcomp's diagnostics
            faulthandler.disable()
            try:
                answer = b"M" + infer(model).SerializeToString()
            except Exception as e:  # noqa: BLE001 - sent to the parent as text
                answer = b"E" + inference_message(e).encode("utf-8", "backslashreplace")
            view = memoryview(answer)
            while view:
                view = view[os.write(write_end, view):]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as f:
        while chunk := f.read(1 << 20):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    answer = b"".join(chunks)
    if os.WIFSIGNALED(status) or not answer:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        name = signal.Signals(sig).name if sig in signal.valid_signals() else f"signal {sig}"
        raise OnnxImportError(f"ONNX's shape inference crashed on this model ({name}); "
                              "the model is malformed")
    if answer[:1] == b"E":
        raise RuntimeError(answer[1:].decode("utf-8", "backslashreplace"))
    return type(model).FromString(answer[1:])
