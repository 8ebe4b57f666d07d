"""qcomp-opt prints what mlir-opt prints: every `// -----` chunk qcomp parses, printed by
qcomp and by upstream MLIR, byte for byte, in the custom and the generic form.

Upstream is the MLIR inside jaxlib (stablehlo, chlo, func, quant; `get_asm()` is
mlir-opt's default printing) for StableHLO programs, and `tosa-opt` (LLVM 24) for tosa
and quant-dialect programs. What upstream lacks:
- jaxlib has no `check` nor `interpreter` dialect: a chunk with their ops is given to
  jaxlib in qcomp's generic form (unregistered ops allowed) and upstream prints the rest;
  those ops' lines themselves are compared with neither;
- jaxlib's Python context does not load the quant dialect: `!quant.uniform` is then an
  opaque type of an unregistered dialect and stablehlo's verifier rejects it ("must be
  ranked tensor of per-tensor integer quantized ..."), which is why REFERENCE.md says
  jaxlib rejects quantized programs. Deserializing a quantized portable artifact into
  the context loads it; then jaxlib parses and prints every quantized chunk.

CI compares ../shared/conformance/stablehlo/, stablehlo-suite/interpret/, a sample of
stablehlo-suite/testdata*/ and the inputs of tests/lit; `python3 tools/print_differential.py`
compares every chunk (QCOMP_PRINT_FULL=1).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qcomp.ir import print_module
from qcomp.tools.diagnostics import SourceFile
from qcomp.tools.qcomp_opt import Options, Timing, process_chunk

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO.parent / "shared" / "conformance"
FULL = os.environ.get("QCOMP_PRINT_FULL") == "1"
SAMPLE_EVERY = 1 if FULL else 25
"""CI compares one file in SAMPLE_EVERY of testdata_dynamic/, one in 4 * SAMPLE_EVERY of
testdata/ (1,833 files); QCOMP_PRINT_FULL=1 compares them all."""

KNOWN_DIFFERENCES: dict[str, str] = {
    "stablehlo-suite/interpret/collective_reduce.mlir#0":
        "stablehlo.collective_reduce is newer than jaxlib's StableHLO (the suite's commit has "
        "it): jaxlib rejects the op",
}
"""Chunks whose text differs, with the reason (a fixed one fails the test: remove it)."""

_SUB_CHANNEL = re.compile(r"!quant\.uniform<[^>]*:\{")
"""Sub-channel (blockwise) quantized types: MLIR's quant dialect has them, StableHLO's ops
do not take them (qcomp's extension): jaxlib rejects such chunks with "must be ranked
tensor of ... per-tensor integer quantized or per-axis integer quantized values"."""

_CHECK_LINE = re.compile(r"(?m)^.*\b(?:check|interpreter)\.[a-z_]+.*\n")
"""Lines of the dialects jaxlib lacks (StableHLO's test-only `check` and
`interpreter`)."""


def _jaxlib():
    pytest.importorskip("jaxlib")
    from jax._src.interpreters import mlir as jmlir
    from jax._src.lib.mlir import ir

    from jaxlib.mlir.dialects import stablehlo as sh

    ctx = jmlir.make_ir_context()
    ctx.allow_unregistered_dialects = True
    # deserializing a portable artifact with a quantized type loads the quant dialect
    tiny = ("func.func @f(%a: tensor<!quant.uniform<i8:f32, 1.0>>) -> "
            "tensor<!quant.uniform<i8:f32, 1.0>> {\n  return %a : "
            "tensor<!quant.uniform<i8:f32, 1.0>>\n}\n")
    with ctx, ir.Location.unknown():
        sh.deserialize_portable_artifact(
            ctx, sh.serialize_portable_artifact_str(tiny, sh.get_current_version()))
    return ctx, ir


class _BothForms(Options):
    """qcomp-opt's options without flags, printing the module in both forms (custom, then
    generic as `--mlir-print-op-generic` prints it) from one parse."""

    def print(self, module):
        return (print_module(module, False, self.hex_limit, self.keep_ssa_names),
                print_module(module, True, self.hex_limit, self.keep_ssa_names))


def _qcomp(text: str) -> tuple[str, str] | None:
    """What `qcomp-opt -` and `qcomp-opt - --mlir-print-op-generic` print for `text`
    (None where qcomp-opt rejects it): qcomp-opt's own parse, verify and print of a chunk
    (`process_chunk`), the chunk parsed once and printed in both forms."""
    sys.set_int_max_str_digits(0)  # as qcomp-opt's main does
    opts = _BothForms(generic=False, allow_unregistered=False, verify_each=True,
                      after_all=False, after_change=False, passes=[])
    out, diags = process_chunk(SourceFile("<stdin>", text), opts, Timing(), io.StringIO())
    if out is None or any(d.severity == "error" for d in diags):
        return None
    # mlir-opt writes a blank line after the module
    return out[0] + "\n", out[1] + "\n"


def _chunks(root: Path, pattern: str, every: int) -> list[tuple[str, str]]:
    files = sorted(root.glob(pattern))[::every]
    out = []
    for f in files:
        for k, chunk in enumerate(f.read_text().split("\n// -----\n")):
            out.append((f"{f.relative_to(CONFORMANCE).as_posix()}#{k}", chunk))
    return out


def _compare_with_jaxlib(chunks: list[tuple[str, str]]) -> tuple[dict[str, str], int]:
    """(name -> first differing line pair, number compared) for the chunks qcomp parses."""
    ctx, ir = _jaxlib()
    differ: dict[str, str] = {}
    compared = 0
    for name, chunk in chunks:
        both = _qcomp(chunk)
        if both is None:
            continue  # ops qcomp does not define yet (issue 11) or upstream-invalid input
        # qcomp's generic form: compared below, and jaxlib's input for the ops it lacks
        ours, ours_generic = both
        source = chunk
        if "check." in chunk or "interpreter." in chunk:
            source = ours_generic
        with ctx, ir.Location.unknown():
            try:
                # mlir-opt writes a blank line after the module
                module = ir.Module.parse(source)
                theirs = module.operation.get_asm() + "\n"
                theirs_generic = module.operation.get_asm(print_generic_op_form=True) + "\n"
            except Exception as e:  # noqa: BLE001 - upstream's rejection, reported
                if _SUB_CHANNEL.search(chunk) and "per-axis integer quantized" in str(e):
                    continue  # expected: see _SUB_CHANNEL
                differ[name] = f"upstream rejects what qcomp accepts: {str(e)[:300]}"
                continue
        compared += 1
        for form, mine, upstream in (("", ours, theirs),
                                     (" (generic)", ours_generic, theirs_generic)):
            a, b = _CHECK_LINE.sub("", mine), _CHECK_LINE.sub("", upstream)
            if a != b:
                pair = next(((x, y) for x, y in zip(a.splitlines(), b.splitlines()) if x != y),
                            ("", f"{len(a.splitlines())} vs {len(b.splitlines())} lines"))
                differ[name + form] = f"qcomp: {pair[0]}\n  upstream: {pair[1]}"
    return differ, compared


def _require(path: Path) -> Path:
    if not path.is_dir():
        pytest.skip(f"{path} not found (shared data absent)")
    return path


@pytest.mark.parametrize("suite, pattern, every", [
    ("stablehlo", "*/*.mlir", 1),
    ("stablehlo-suite", "interpret/*.mlir", 1),
    ("stablehlo-suite", "testdata/*.mlir", 1 if FULL else 4 * SAMPLE_EVERY),
    ("stablehlo-suite", "testdata_dynamic/*.mlir", SAMPLE_EVERY),
])
def test_conformance_prints_as_jaxlib_does(suite: str, pattern: str, every: int):
    chunks = _chunks(_require(CONFORMANCE / suite), pattern, every)
    differ, compared = _compare_with_jaxlib(chunks)
    unexpected = {k: v for k, v in differ.items() if k not in KNOWN_DIFFERENCES}
    assert not unexpected, "\n".join(f"{k}:\n  {v}" for k, v in list(unexpected.items())[:5])
    names = {name for name, _ in chunks}
    fixed = {k for k in KNOWN_DIFFERENCES if k in names and k not in differ}
    assert not fixed, f"now printed as upstream does, remove from KNOWN_DIFFERENCES: {fixed}"
    assert compared > 0


def _lit_chunks() -> list[tuple[str, str]]:
    out = []
    for f in sorted((REPO / "tests" / "lit").rglob("*.mlir")):
        for k, chunk in enumerate(f.read_text().split("\n// -----\n")):
            if "expected-" in chunk:
                continue
            out.append((f"{f.relative_to(REPO).as_posix()}#{k}", chunk))
    return out


_TOSA_OPT_PROGRAM = re.compile(r"\btosa\.|\bquant\.(?:qcast|dcast|scast)\b")


def test_lit_inputs_print_as_upstream_does(tmp_path: Path):
    """The project's own lit inputs: StableHLO ones against jaxlib, tosa and quant-dialect
    ones against tosa-opt (chunks with qcomp's own dialects, rowwise, onnx (onnx-mlir is not
    installed) and unregistered test ops, have no upstream printer and are left out)."""
    def code(chunk: str) -> str:
        return re.sub(r"//.*", "", chunk)

    chunks = [(n, c) for n, c in _lit_chunks()
              if "rowwise." not in code(c) and "onnx." not in code(c)
              and '"test.' not in code(c)]
    hlo = [(n, c) for n, c in chunks if not _TOSA_OPT_PROGRAM.search(code(c))]
    differ, compared = _compare_with_jaxlib(hlo)
    assert not differ, "\n".join(f"{k}:\n  {v}" for k, v in list(differ.items())[:5])
    assert compared > 50
    # tosa-opt has no stablehlo: chunks with both have no upstream printer
    tosa = [(n, c) for n, c in chunks if _TOSA_OPT_PROGRAM.search(code(c))
            and "stablehlo." not in code(c) and "chlo." not in code(c)]
    if not tosa:
        return
    exe = pytest.importorskip("shutil").which("tosa-opt")
    if exe is None:
        pytest.skip("tosa-opt (pip tosa-tools) is not installed")
    # tosa-opt loads the quant dialect once a tosa op is parsed
    loader = ('func.func @qcomp_load() {\n  %0 = "tosa.const"() <{values = dense<1> : '
              'tensor<1xi8>}> : () -> tensor<1xi8>\n  return\n}\n')
    # one tosa-opt run for every chunk (--split-input-file), not one process per chunk
    names, ours_all, sources = [], [], []
    for name, chunk in tosa:
        both = _qcomp(loader + chunk)
        if both is None:
            continue  # qcomp rejects it: no printing to compare
        ours = both[0]
        source = ours if "check." not in chunk else both[1]
        names.append(name)
        ours_all.append(ours)
        sources.append(source)
    src = tmp_path / "chunks.mlir"
    src.write_text("\n// -----\n".join(sources))
    run = subprocess.run([exe, "--allow-unregistered-dialect", "--split-input-file", str(src)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"tosa-opt rejects what qcomp accepts:\n{run.stderr[:600]}"
    theirs_all = run.stdout.split("// -----\n")
    assert len(theirs_all) == len(sources), (len(theirs_all), len(sources))
    mismatches = []
    for name, ours, theirs in zip(names, ours_all, theirs_all, strict=True):
        a, b = _CHECK_LINE.sub("", ours), _CHECK_LINE.sub("", theirs)
        if a != b:
            pair = next(((x, y) for x, y in zip(a.splitlines(), b.splitlines()) if x != y),
                        (f"{len(a)} chars", f"{len(b)} chars"))
            mismatches.append(f"{name}:\n  qcomp:    {pair[0]}\n  tosa-opt: {pair[1]}")
    assert not mismatches, "\n".join(mismatches[:5])
