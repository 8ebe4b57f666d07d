"""qcomp-run's array files (--inputs IN.npz, --input=@FILE): corrupt, truncated, foreign
or oversized files are one-line errors read no further than their headers, and every
array is checked against its argument's type, width by width."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from qcomp.tools.npy_files import ArrayFileError, load_arrays
from tests.in_process import tool

I4 = "func.func @main(%a: tensor<2xi4>) -> tensor<2xi4> {\n  return %a : tensor<2xi4>\n}\n"
Q4 = ("func.func @main(%a: tensor<2x!quant.uniform<i4:f32, 0.5>>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i4:f32, 0.5>>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n")


def run(tmp_path, program: str, *argv: str) -> subprocess.CompletedProcess:
    prog = tmp_path / "p.mlir"
    prog.write_text(program)
    return tool("qcomp-run", str(prog), *argv, text=True)


def one_line_error(r: subprocess.CompletedProcess, *parts: str) -> None:
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("qcomp-run: error: "), r.stderr
    for p in parts:
        assert p in lines[0]


@pytest.fixture
def files(tmp_path):
    ok = tmp_path / "ok.npz"
    np.savez(ok, arg0=np.array([1, 2], np.int8))
    raw = ok.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(raw[: len(raw) // 2])
    bad = bytearray(raw)
    bad[raw.find(b"NUMPY") + 120] ^= 0xFF  # inside the array data: the CRC no longer matches
    (tmp_path / "crc.npz").write_bytes(bytes(bad))
    np.save(tmp_path / "one.npy", np.array([1, 2], np.int8))
    header = (tmp_path / "one.npy").read_bytes()
    (tmp_path / "huge.npy").write_bytes(header.replace(b"'shape': (2,)", b"'shape': (100000, 100000)"))
    np.savez(tmp_path / "wide.npz", arg0=np.array([100, 3], np.int8))
    return tmp_path


@pytest.mark.parametrize("flag", ["--inputs", "--input=@"])
@pytest.mark.parametrize("name, message", [
    ("trunc.npz", "corrupt or truncated (a zip archive without its central directory)"),
    ("crc.npz", "Bad CRC-32"),
    ("huge.npy", "needs 10000000000 bytes, over the memory limit"),
])
def test_bad_files_are_one_line_errors(files, flag, name, message):
    path = str(files / name)
    argv = [flag, path] if flag == "--inputs" else [flag + path]
    one_line_error(run(files, I4, *argv), message)


def test_npy_to_inputs_names_the_right_flag(files):
    one_line_error(run(files, I4, "--inputs", str(files / "one.npy")),
                   f"--input=@{files / 'one.npy'}")


@pytest.mark.parametrize("program, type_text", [(I4, "of i4"), (Q4, "!quant.uniform<i4:f32")])
@pytest.mark.parametrize("flag", ["--inputs", "--input=@"])
def test_every_width_is_range_checked(files, program, type_text, flag):
    path = str(files / "wide.npz")
    argv = [flag, path] if flag == "--inputs" else [flag + path]
    one_line_error(run(files, program, *argv), "has values outside [-8, 7]", type_text)


def test_good_archive_runs(files):
    r = run(files, I4, "--inputs", str(files / "ok.npz"))
    assert r.returncode == 0 and r.stdout == "@main result[0]: 2xi4=[1 2]\n"


def test_header_is_read_before_any_data(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((3, 4), np.float32))
    raw = (tmp_path / "a.npy").read_bytes()
    (tmp_path / "short.npy").write_bytes(raw[:-5])
    with pytest.raises(ArrayFileError, match="truncated"):
        load_arrays(str(tmp_path / "short.npy"), 1 << 20)
    with pytest.raises(ArrayFileError, match="over the memory limit of 47"):
        load_arrays(str(tmp_path / "a.npy"), 47)
    assert load_arrays(str(tmp_path / "a.npy"), 48).shape == (3, 4)


ML_TYPES = [  # (MLIR element type, ml_dtypes type, values)
    ("bf16", "bfloat16", [1.5, -2.0, 0.1]),
    ("f8E4M3FN", "float8_e4m3fn", [1.5, -2.0, 448.0]),
    ("f8E5M2", "float8_e5m2", [1.5, -2.0, 57344.0]),  # np.savez writes '<f1'
    ("f8E4M3FNUZ", "float8_e4m3fnuz", [1.5, -2.0, 240.0]),
    ("f8E5M2FNUZ", "float8_e5m2fnuz", [1.5, -2.0, 0.5]),
    ("f8E8M0FNU", "float8_e8m0fnu", [1.0, 2.0, 0.5]),
    ("f4E2M1FN", "float4_e2m1fn", [1.5, -2.0, 6.0]),
    ("i4", "int4", [-8, 7, -1]),
    ("ui4", "uint4", [0, 15, 9]),
    ("i2", "int2", [-2, 1, -1]),
    ("ui2", "uint2", [0, 3, 2]),
]


@pytest.mark.parametrize("mlir, name, values", ML_TYPES, ids=[t[0] for t in ML_TYPES])
def test_ml_dtypes_arrays_round_trip_through_npz(tmp_path, mlir, name, values):
    """np.savez writes ml_dtypes arrays as `|V1` / `|V2` (or `<f1`) bytes: qcomp-run
    takes them as the argument type's bits; --output writes the raw bits as unsigned
    integers with the ml_dtypes name beside them, which plain np.load reads."""
    import ml_dtypes

    dt = getattr(ml_dtypes, name)
    arr = np.array(values, dt)
    np.savez(tmp_path / "x.npz", arg0=arr)
    program = (f"func.func @main(%a: tensor<3x{mlir}>) -> tensor<3x{mlir}> {{\n"
               f"  return %a : tensor<3x{mlir}>\n}}\n")
    r = run(tmp_path, program, "--inputs", str(tmp_path / "x.npz"), "--output",
            str(tmp_path / "y.npz"))
    assert r.returncode == 0, r.stderr
    z = np.load(tmp_path / "y.npz")  # no pickle, no ml_dtypes
    got = z["result0"]
    if mlir in ("i4", "ui4", "i2", "ui2"):  # qcomp holds them in int8 / uint8
        assert sorted(z.files) == ["result0"]
        assert got.tolist() == [int(v) for v in values]
    else:
        assert sorted(z.files) == ["result0", "result0_dtype"]
        assert str(z["result0_dtype"]) == name
        assert got.dtype == np.dtype(f"u{arr.itemsize}")
        assert got.tobytes() == arr.tobytes()


def test_void_array_of_another_width_is_a_mismatch(tmp_path):
    np.savez(tmp_path / "x.npz", arg0=np.zeros(2, "V2"))
    r = run(tmp_path, I4, "--inputs", str(tmp_path / "x.npz"))
    one_line_error(r, "@main argument 0 (%a): expected 2xi4, got 2xvoid16 from --inputs")
