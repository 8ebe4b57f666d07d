"""Run chunks of MLIR through upstream's `tosa-opt` (pip tosa-tools) and through qcomp,
giving for each chunk (first error message, the kept printed lines with SSA names
blanked), so the two can be compared line by line. The message loses its `'<op>' op `
prefix unless `keep_prefix` (MLIR's emitOpError writes one, emitError none: with
`keep_prefix` the two are compared too)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

from qcomp.ir import print_module

from qcomp.registry import parse_module
from qcomp.registry import make_context

Result = tuple[str | None, list[str]]
_CTX = []


def kept_lines(text: str, keep: Callable[[str], bool]) -> list[str]:
    return [re.sub(r"%[\w]+", "%V", line.strip()) for line in text.splitlines() if keep(line)]


def upstream_results(chunks: list[str], tmp_path, keep: Callable[[str], bool],
                     keep_prefix: bool = False) -> list[Result]:
    path = tmp_path / "cases.mlir"
    path.write_text("\n// -----\n".join(chunks) + "\n")
    run = subprocess.run(["tosa-opt", "--split-input-file", str(path)], capture_output=True,
                         text=True, timeout=120)
    starts, line = [], 1
    for c in chunks:
        starts.append(line)
        line += c.count("\n") + 2
    errors: dict[int, str] = {}
    prefix = "" if keep_prefix else r"(?:'[\w.]+' op )?"
    for m in re.finditer(r"^[^:\n]*:(\d+):\d+: error: " + prefix + "(.*)$", run.stderr,
                         re.M):
        errors.setdefault(max(k for k, s in enumerate(starts) if s <= int(m.group(1))),
                          m.group(2))
    # every chunk, failing ones included (they print nothing), ends with a separator
    printed = run.stdout.split("// -----")
    assert len(printed) == len(chunks), run.stderr[-2000:]
    return [(errors.get(k), kept_lines(printed[k], keep)) for k in range(len(chunks))]


def qcomp_result(chunk: str, keep: Callable[[str], bool], keep_prefix: bool = False) -> Result:
    if not _CTX:
        _CTX.append(make_context())
    try:
        module = parse_module(chunk, _CTX[0])
        if keep_prefix:
            from qcomp.tools.verify import verify_module

            diagnostic = verify_module(module, {})
            if diagnostic is not None:
                return diagnostic.message, []
        module.verify()
    except Exception as e:  # noqa: BLE001 - any diagnostic, compared by text
        message = str(e)
        m = re.search(r"\n *\^+\n *(.*)", message)  # parse errors: text under the caret
        first = m.group(1) if m else message.splitlines()[0]
        return (first if keep_prefix else re.sub(r"^'[\w.]+' op ", "", first)), []
    return None, kept_lines(print_module(module), keep)
