"""What qcomp's command-line tools share: argument errors as exceptions, the
`// -----` input split, op -> source offset, and the guarded entry point that
turns any bug into a one-line `internal error` (never a traceback)."""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Literal, TextIO

from qcomp.tools import dataclass_methods

SPLIT_MARKER = "// -----"
_SPLIT = re.compile(r"^// -----[^\n]*(?:\n|$)", re.MULTILINE)


class InternalError(Exception):
    """A bug (not bad input), with what the tool was doing when it happened."""


class UsageError(Exception):
    """Bad command line."""


class ArgParser(argparse.ArgumentParser):
    """argparse that raises `UsageError` instead of exiting (never sys.exit from main),
    and takes no abbreviated option (as LLVM's tools: `--split-input-fil` is unknown)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        raise UsageError(message)


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str], prog: str,
                       passes: list[str] | None = None) -> argparse.Namespace:
    """`argv` parsed; UsageError for an unknown argument naming the nearest option (or
    pass, given `passes`) by edit distance, as LLVM's "Did you mean" does."""
    args, unknown = parser.parse_known_args(argv)
    for arg in unknown:
        if arg.startswith("-") and arg != "-":
            from qcomp.pipeline import suggestion  # here: a good command line loads no pass machinery

            key = arg.partition("=")[0]
            options = [s for a in parser._actions for s in a.option_strings]
            near = suggestion(key, [*options, *(f"--{n}" for n in passes or ())])
            what = "pass or option" if passes is not None else "option"
            hint = f"; did you mean '{near}'?" if near else ""
            raise UsageError(f"unknown {what} '{key}'{hint} ({prog} --help lists them)")
    if unknown:
        raise UsageError(f"unexpected argument '{unknown[0]}' (one input file at most)")
    return args


def split_chunks(text: str, split: bool) -> Iterator[str]:
    """Chunks of the input, each padded with newlines so line numbers stay those of
    the whole file; made one at a time (linear in the input: newlines are counted once)."""
    if not split:
        yield text
        return
    lines, counted, start = 0, 0, 0
    for m in [*_SPLIT.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        lines += text.count("\n", counted, start)
        counted = start
        yield "\n" * lines + text[start:end]
        if m is not None:
            start = m.end()


def parser_message(e: Exception) -> str:
    """The diagnostic text for an exception a dialect's parser raised on bad input."""
    if isinstance(e, RecursionError):
        return ("nesting too deep: regions, attributes or types are nested past the depth "
                "qcomp's parser follows")
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def op_offset(op, positions) -> int | None:
    """Source offset of `op` or of its closest parsed ancestor."""
    while op is not None:
        if op in positions:
            return positions[op]
        op = op.parent_op()
    return None


def read_input(prog: str, path: str, stdin: TextIO, stderr: TextIO
               ) -> tuple[str, str, bool] | None:
    """(name, text, imported) of the input file (`-`: stdin, named `<stdin>`;
    `imported`: the text is a model's import); None after writing `prog: error: could
    not open input file ...` (or the importer's error) when it cannot be read."""
    try:
        if path == "-":
            # the bytes, decoded as a file is: stdin's own decoding and newline translation
            # would differ from a path's (CR-only line endings, invalid UTF-8)
            raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
            name = "<stdin>"
        else:
            with open(path, "rb") as f:
                raw = f.read()
            name = path
    except OSError as e:
        stderr.write(f"{prog}: error: could not open input file '{path}': {e.strerror}\n")
        return None
    if isinstance(raw, bytes):
        imported = import_model(prog, name, raw, stderr)
        if imported is None:
            return None
        if imported is not False:
            return *imported, True
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    # universal newlines (a lone CR ends a line, and so a `//` comment, as in MLIR's
    # lexer); a leading byte-order mark is skipped, as MLIR does
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return name, text.removeprefix("\ufeff"), False


def import_model(prog: str, name: str, raw: bytes, stderr: TextIO
                 ) -> tuple[str, str] | Literal[False] | None:
    """A model file as (name, MLIR text): `.onnx` (by suffix or a ModelProto's first
    byte) in the `onnx` dialect, `.tflite` (by suffix or its `TFL3` identifier) as
    quantized StableHLO; None after writing `prog: error: name: ...` when it cannot be
    imported; False when `raw` is not a model file (then it is read as MLIR text)."""
    from qcomp.importers.formats import is_onnx, is_tflite

    # an importer (and the dialects it builds) is imported only for its own files
    if is_tflite(name, raw):
        from qcomp.importers import tflite

        read, failure = tflite.import_tflite, tflite.ImportFailure
    elif is_onnx(name, raw):
        from qcomp.importers import onnx

        read, failure = onnx.import_text, onnx.OnnxImportError
    else:
        return False
    try:
        return name, read(raw)
    except failure as e:
        stderr.write(f"{prog}: error: {name}: {e}\n")
        return None


Runner = Callable[[list[str], TextIO, TextIO, TextIO], int]


def guarded_main(prog: str, run: Runner, argv: list[str] | None, stdin: TextIO | None,
                 stdout: TextIO | None, stderr: TextIO | None) -> int:
    """`run(argv, stdin, stdout, stderr)` with the process's streams by default; exit
    code 130 on Ctrl-C, 141 (SIGPIPE's) without a message when stdout's reader has gone
    (`| head`), 2 with `prog: internal error: ...` on any other exception (the
    traceback only with QCOMP_DEBUG=1)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # MLIR reads integer literals of any length (APInt): no 4300-digit limit, so a long
    # literal is judged by its value ("integer constant out of range for type")
    sys.set_int_max_str_digits(0)
    in_: TextIO = sys.stdin if stdin is None else stdin
    out: TextIO = sys.stdout if stdout is None else stdout
    err: TextIO = sys.stderr if stderr is None else stderr
    try:
        return run(argv, in_, out, err)
    except KeyboardInterrupt:
        err.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (`qcomp-run ... | head`): stop quietly, as a shell tool does
        _silence(out)
        return 141
    except Exception as e:  # noqa: BLE001 - the last line of defence: no tracebacks
        what = str(e) if isinstance(e, InternalError) else f"{type(e).__name__}: {e}"
        err.write(f"{prog}: internal error: {what}\n")
        if os.environ.get("QCOMP_DEBUG") == "1":
            traceback.print_exc(file=err)
        return 2
    finally:
        dataclass_methods.save()  # the methods compiled this run, for the next one


def _silence(stream: TextIO) -> None:
    """Point a broken stdout at /dev/null so that flushing it at exit stays quiet."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
