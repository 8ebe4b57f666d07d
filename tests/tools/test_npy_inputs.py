"""qcomp-run's array files (--inputs IN.npz, --input=@FILE): corrupt, truncated, foreign
or oversized files are one-line errors read no further than their headers, and every
array is checked against its argument's type, width by width."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from qcomp.tools.npy_files import ArrayFileError, load_arrays

ROOT = Path(__file__).resolve().parents[2]
I4 = "func.func @main(%a: tensor<2xi4>) -> tensor<2xi4> {\n  return %a : tensor<2xi4>\n}\n"
Q4 = ("func.func @main(%a: tensor<2x!quant.uniform<i4:f32, 0.5>>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i4:f32, 0.5>>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n")


def run(tmp_path, program: str, *argv: str) -> subprocess.CompletedProcess:
    prog = tmp_path / "p.mlir"
    prog.write_text(program)
    return subprocess.run(["qcomp-run", str(prog), *argv], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def one_line_error(r: subprocess.CompletedProcess, *parts: str) -> None:
    assert r.returncode == 2 and r.stdout == ""
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
