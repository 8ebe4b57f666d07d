"""`qcomp-run --probe-output-dir`: each interpreter.probe value written as upstream's
evalProbeOp writes it (stablehlo/reference/InterpreterOps.cpp, NumPy.cpp): DIR/probeN.npy
numbered from 1 per module run, and `probe_id,type,path` lines in DIR/index.csv. NumPy's
own reader is the oracle for the files; the header text is upstream's."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from qcomp.tools.qcomp_run import main

PROGRAM = """func.func @main() {
  %a = stablehlo.constant dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi32>
  %pa = interpreter.probe %a, probe_id = "ints" : tensor<2x3xi32>
  %b = stablehlo.constant dense<[1.5, -0.25]> : tensor<2xf16>
  %pb = interpreter.probe %b, probe_id = "halves" : tensor<2xf16>
  %c = stablehlo.constant dense<-7> : tensor<i64>
  %pc = interpreter.probe %c, probe_id = "wide" : tensor<i64>
  %d = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  %pd = interpreter.probe %d, probe_id = "z" : tensor<1xcomplex<f32>>
  %e = stablehlo.add %pa, %pa : tensor<2x3xi32>
  %pe = interpreter.probe %e, probe_id = "ints" : tensor<2x3xi32>
  check.expect_serialized_eq %e, probe_id = "ints", iter = 1 : tensor<2x3xi32>
  func.return
}
"""


def _run(tmp_path: Path, text: str, *extra: str) -> tuple[int, str]:
    src = tmp_path / "p.mlir"
    src.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(src), f"--probe-output-dir={tmp_path}", *extra], None, out, err)
    return code, err.getvalue()


def test_probe_files_as_upstream_writes_them(tmp_path):
    code, err = _run(tmp_path, PROGRAM)
    assert code == 0, err
    lines = (tmp_path / "index.csv").read_text().splitlines()
    assert lines == [f"ints,tensor<2x3xi32>,{tmp_path}/probe1.npy",
                     f"halves,tensor<2xf16>,{tmp_path}/probe2.npy",
                     f"wide,tensor<i64>,{tmp_path}/probe3.npy",
                     f"z,tensor<1xcomplex<f32>>,{tmp_path}/probe4.npy",
                     f"ints,tensor<2x3xi32>,{tmp_path}/probe5.npy"]
    raw = (tmp_path / "probe1.npy").read_bytes()
    header = "{'descr': '<i4', 'fortran_order': False, 'shape' : (2,3,), }      \n"
    assert raw[:10] == b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
    assert raw[10:10 + len(header)] == header.encode()
    assert np.load(tmp_path / "probe1.npy").tolist() == [[1, -2, 3], [4, 5, -6]]
    assert np.load(tmp_path / "probe5.npy").tolist() == [[2, -4, 6], [8, 10, -12]]
    halves = np.load(tmp_path / "probe2.npy")
    assert halves.dtype == np.dtype("<u2")  # upstream writes f16 as its bits
    assert halves.view(np.float16).tolist() == [1.5, -0.25]
    wide = np.load(tmp_path / "probe3.npy")
    assert wide.dtype == np.dtype("<u8") and wide.shape == ()  # upstream: i64 as uint64_t
    assert int(wide.view(np.int64)) == -7
    z = np.load(tmp_path / "probe4.npy")
    assert z.dtype == np.dtype("<f8") and z.view(np.complex64).tolist() == [1 + 2j]


def test_each_module_run_restarts_the_numbering(tmp_path):
    text = PROGRAM + "\n// -----\n" + """func.func @main() {
  %a = stablehlo.constant dense<3> : tensor<ui8>
  %p = interpreter.probe %a, probe_id = "again" : tensor<ui8>
  func.return
}
"""
    code, err = _run(tmp_path, text, "--split-input-file")
    assert code == 0, err
    assert (tmp_path / "index.csv").read_text() == f"again,tensor<ui8>,{tmp_path}/probe1.npy\n"
    again = np.load(tmp_path / "probe1.npy")
    assert again.dtype == np.dtype("u1") and int(again) == 3


def test_types_upstream_cannot_serialize_are_an_error(tmp_path):
    code, err = _run(tmp_path, """func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi4>
  %p = interpreter.probe %a, probe_id = "nibbles" : tensor<2xi4>
  func.return
}
""")
    assert code == 1
    assert "upstream cannot serialize i4 values" in err


def test_missing_directory_is_upstreams_error(tmp_path):
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(src), f"--probe-output-dir={tmp_path / 'absent'}"], None, out, err)
    assert code == 1 and "Failed to open NumPy file." in err.getvalue()
