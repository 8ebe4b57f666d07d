"""A warm fork server for the lit suite's tools: `qcomp-opt`, `qcomp-run`, `FileCheck`
and `%python SCRIPT` (the scripts that write the ONNX models).

A cold `qcomp-opt` spends most of its time importing (NumPy, xDSL, qcomp's dialects);
a RUN line starts one or more. `lit.cfg.py` starts one server per lit run, which
imports the tools once and then forks a fresh copy of itself per command: the copy runs
the tool's `main` on the command's own stdin/stdout/stderr (the client's file
descriptors, passed over a Unix socket), arguments, working directory and environment,
and exits with the tool's exit code, which the client exits with. lit's internal shell
still runs the RUN lines (pipes, `not`, redirections, `%t` files); only each tool's
process is the small client instead of a cold Python. The client is tool_client.c's
when lit.cfg.py could compile it (~1 ms of CPU, ~550 clients a lit run), else this
file's (a Python start-up, ~15-25 ms); both send the same request.

    python3 tool_server.py serve SOCKET      # lit.cfg.py: prints `ready` once listening
    tool_client SOCKET qcomp-opt ARGS...     # or:
    python3 -I -S tool_server.py client SOCKET qcomp-opt ARGS...

Before it serves, the server runs a few representative commands (WARM_UP) in-process,
output discarded, so that what a tool computes on first use is in every fork. Every
command gets a copy of the server as it was after the imports and the warm-up, so no
state passes from one command to the next. The server exits when its stdin (a pipe
held by lit) closes. `QCOMP_LIT_COLD=1` makes lit.cfg.py run the installed console scripts instead.

`QCOMP_LIT_TOOL_CPU=FILE` appends each command's CPU seconds to FILE (`seconds<TAB>argv
<TAB>cwd`). The server forks each tool itself (no supervisor process between) and reaps
it, so the tools' CPU is in the server's resource usage and so in lit's (a child of
lit) and pytest's (QCOMP_TEST_CPU of tests/test_lit.py).
"""

import gc
import os
import sys

TOOLS = {
    "qcomp-opt": ("qcomp.tools.qcomp_opt", "main"),
    "qcomp-run": ("qcomp.tools.qcomp_run", "main"),
    "filecheck": ("filecheck.main", "main"),
}
"""Tool name -> (module, entry function): what the console scripts call."""

_SIZE = 4
"""A request starts with its length, and a reply is the exit status: 4 bytes, big-endian.
The request's fields follow the length, each NUL-terminated: the working directory, the
argument count, the arguments (tool name first), the environment's NAME=VALUE entries;
the client's file descriptors 0, 1 and 2 go along (SCM_RIGHTS)."""


# -- client: the process lit starts, once per tool in a RUN line (started with -I -S) ---
# It imports only the built-in _socket (no json, socket or struct, whose imports of re
# and enum cost each client ~20 ms of CPU). tool_client.c is the same client in C.

def client(path: str, argv: list[str]) -> int:
    import _socket

    fields = [os.getcwd(), str(len(argv)), *argv, *(f"{k}={v}" for k, v in os.environ.items())]
    request = b"".join(os.fsencode(field) + b"\0" for field in fields)
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.connect(path)
        stdio = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
        s.sendmsg([len(request).to_bytes(_SIZE, "big") + request],
                  [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, stdio)])
        status = b""
        while len(status) < _SIZE:
            chunk = s.recv(_SIZE - len(status))
            if not chunk:
                sys.stderr.write(f"tool_server: {argv[0]}: the server closed the connection\n")
                return 70
            status += chunk
    finally:
        s.close()
    return int.from_bytes(status, "big")


# -- server -----------------------------------------------------------------------------

def _preload() -> None:
    """Import the tools and what they load on demand, so that a forked copy starts warm."""
    import importlib

    for module, _ in TOOLS.values():
        importlib.import_module(module)
    from qcomp.interpreter import runner
    from qcomp.ir.lazy_format import read_formats
    from qcomp.registry import DIALECTS, PASSES, XDSL_PASSES, make_context

    for factory in (*DIALECTS.values(), *PASSES.values(), *XDSL_PASSES.values()):
        loaded = factory()
        read_formats(getattr(loaded, "operations", ()))
    runner.dialect_functions({*DIALECTS, "arith", "math"})
    make_context()
    import qcomp.importers.tflite  # noqa: F401
    import qcomp.tools.verify_numerics  # noqa: F401
    import qcomp.tools.run_inputs  # noqa: F401
    import qcomp.tools.run_lowered  # noqa: F401
    try:
        import qcomp.importers.onnx  # noqa: F401
        import onnx  # noqa: F401
    except ImportError:
        pass


WARM_UP = (
    ("qcomp-opt", "dialects/stablehlo/elementwise.mlir"),
    ("qcomp-opt", "dialects/tosa/ops.mlir", "--print-op-generic"),
    ("qcomp-opt", "dialects/quant/types.mlir"),
    ("qcomp-opt", "dialects/onnx/ops.mlir"),
    ("qcomp-opt", "dialects/stablehlo/invalid.mlir", "--split-input-file", "--verify-diagnostics"),
    ("qcomp-opt", "passes/stablehlo-legalize-quant-to-math/dot.mlir",
     "--stablehlo-legalize-quant-to-math", "--split-input-file", "--verify-numerics"),
    ("qcomp-opt", "passes/onnx-legalize-to-stablehlo/elementwise.mlir",
     "--onnx-legalize-to-stablehlo", "--split-input-file", "--verify-numerics"),
    ("qcomp-run", "tools/qcomp-run/semantics.mlir", "--print-results"),
    ("filecheck", "dialects/tosa/ops.mlir", "--input-file", "dialects/tosa/ops.mlir"),
)
"""Commands (paths relative to tests/lit, each exiting 0) the server runs once before it
serves: what a command computes on first use (ABC subclass caches, compiled regexes,
functools caches, lazily built tables and imports) is then in every fork. It cuts the
forks' CPU by about a quarter (~26 ms a qcomp-opt) for ~1.5 s in the server."""


def _warm_up() -> None:
    """Run WARM_UP in this process, reading /dev/null and writing to it. The server's
    streams, argv, environment and directory are restored after each command, and the
    warnings filters (and with them Python's record of warnings shown once) after all,
    so a fork behaves as one of a server that never ran them; a command that does not
    exit 0 is reported on the server's stderr (lit's)."""
    import warnings

    here = os.path.dirname(os.path.abspath(__file__))
    streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    argv, environ, cwd = sys.argv, dict(os.environ), os.getcwd()
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        with warnings.catch_warnings():
            for name, *args in WARM_UP:
                command = [name, *(a if a.startswith("-") else os.path.join(here, a) for a in args)]
                _fresh_std_streams()
                try:
                    code = _call_tool(command)
                except Exception as e:  # noqa: BLE001 - reported below, the server goes on
                    code = repr(e)
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                sys.argv = argv
                os.environ.clear()
                os.environ.update(environ)
                os.chdir(cwd)
                if code != 0:
                    os.write(saved[2], f"tool_server: warm-up `{' '.join(command)}` "
                                       f"exited {code}\n".encode())
    finally:
        for fd in (0, 1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
        os.close(devnull)
        sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


def _decode_request(data: bytes) -> dict:
    """A request's fields (NUL-terminated: working directory, argument count, the
    arguments, the environment's NAME=VALUE entries) as `{"argv", "cwd", "env"}`."""
    fields = [os.fsdecode(field) for field in data.split(b"\0")[:-1]]
    count = int(fields[1])
    env = dict(entry.split("=", 1) for entry in fields[2 + count:] if "=" in entry)
    return {"cwd": fields[0], "argv": fields[2:2 + count], "env": env}


def _recv_request(conn: "socket.socket") -> tuple[dict, list[int]]:
    import socket
    import struct

    fds: list[int] = []
    data = b""
    size = None
    while size is None or len(data) < _SIZE + size:
        msg, ancdata, _, _ = conn.recvmsg(1 << 16, socket.CMSG_SPACE(3 * 4))
        if not msg:
            raise EOFError("client went away")
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += struct.unpack(f"{len(payload) // 4}i", payload[:len(payload) // 4 * 4])
        data += msg
        if size is None and len(data) >= _SIZE:
            size = int.from_bytes(data[:_SIZE], "big")
    return _decode_request(data[_SIZE:]), fds


def _fresh_std_streams() -> None:
    """sys.stdin/stdout/stderr made anew on fds 0-2 (now the client's), as Python's
    start-up makes them: the server's were made for its own (different) files."""
    import io

    def stream(fd: int, like: io.TextIOWrapper, mode: str, line_buffering: bool) -> io.TextIOWrapper:
        return io.TextIOWrapper(open(fd, mode + "b", closefd=False), encoding=like.encoding,
                                errors=like.errors, line_buffering=line_buffering)

    sys.stdin = sys.__stdin__ = stream(0, sys.__stdin__, "r", False)
    sys.stdout = sys.__stdout__ = stream(1, sys.__stdout__, "w", os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, sys.__stderr__, "w", True)


def _run_script(argv: list[str]) -> None:
    """`python SCRIPT ARGS...` (lit's `%python`; a script, no interpreter options)."""
    import runpy

    if not argv or argv[0].startswith("-"):
        raise SystemExit(f"tool_server: python: give a script, not options ({argv})")
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")


def _call_tool(argv: list[str]) -> int:
    """Run one command's tool in this process (sys.std* already its streams): its exit code."""
    try:
        if argv[0] == "python":
            _run_script(argv[1:])
            return 0
        module, entry = TOOLS[argv[0]]
        sys.argv = list(argv)
        main = getattr(sys.modules[module], entry)
        result = main(argv) if argv[0] == "filecheck" else main(argv[1:])
        return 0 if result is None else result
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        sys.stderr.write(f"{e.code}\n")
        return 1


def _run_tool(request: dict, fds: list[int]) -> None:
    """In the forked copy: become the tool's process and exit with its code."""
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _fresh_std_streams()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        # A tool run is short and small (the largest lit command peaks at ~66 MB): no
        # cyclic collection in it, ~a fifth of a qcomp-opt fork's CPU
        gc.disable()
        code = _call_tool(request["argv"])
    except BaseException:  # noqa: BLE001 - a tool's uncaught error, as Python reports it
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (BrokenPipeError, OSError):
                pass
        os._exit(code & 0xFF)


def _report(pid: int, conn: "socket.socket", request: dict) -> None:
    """A command's tool has exited: reap it, log its CPU, send its status to its client."""
    _, status, usage = os.wait4(pid, 0)
    log = os.environ.get("QCOMP_LIT_TOOL_CPU")
    if log:  # the tool's CPU seconds: the server's forks are not lit's children
        with open(log, "a") as f:
            f.write(f"{usage.ru_utime + usage.ru_stime:.4f}\t{' '.join(request['argv'])}\t{request['cwd']}\n")
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code  # killed by a signal: as a shell reports it
    try:
        conn.sendall(code.to_bytes(_SIZE, "big"))
    except OSError:
        pass
    conn.close()


def serve(path: str) -> None:
    """Serve until stdin closes: each request is one fork (the tool), watched through a
    pidfd in the same select loop, so no process stands between the server and a tool."""
    import select
    import socket

    if not hasattr(os, "pidfd_open"):  # then lit.cfg.py, seeing no `ready`, runs the tools cold
        raise SystemExit("tool_server: needs os.pidfd_open (Linux 5.3, Python 3.9)")
    _preload()
    _warm_up()
    gc.freeze()  # the warm heap stays out of every fork's collections (and its pages shared)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    lifeline = sys.stdin.fileno()
    running: dict[int, tuple[int, socket.socket, dict]] = {}  # pidfd -> pid, client, request
    while True:
        readable, _, _ = select.select([listener, lifeline, *running], [], [])
        if lifeline in readable and not os.read(lifeline, 4096):
            break  # lit has exited
        for pidfd in readable:
            if pidfd in running:
                _report(*running.pop(pidfd))
                os.close(pidfd)
        if listener in readable:
            conn, _ = listener.accept()
            try:
                request, fds = _recv_request(conn)
            except (EOFError, OSError, ValueError):
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                for pidfd, (_, other, _) in running.items():
                    os.close(pidfd)
                    other.close()
                conn.close()
                _run_tool(request, fds)
            for fd in fds:
                os.close(fd)
            running[os.pidfd_open(pid)] = (pid, conn, request)
    listener.close()
    os.unlink(path)
    os.rmdir(os.path.dirname(path))


if __name__ == "__main__":
    if sys.argv[1] == "client":
        sys.exit(client(sys.argv[2], sys.argv[3:]))
    serve(sys.argv[2])
