"""qcomp-run's inputs that once escaped as Python errors (issue 29, items 16-19 and 21):
each is now one `qcomp-run: error: ...` line with exit code 2 (qcomp-run's code for an
unreadable input), or for --verify-numerics a diagnostic at the function, exit 1."""

from __future__ import annotations

import io
import tracemalloc

import numpy as np
import pytest

from qcomp.tools.qcomp_opt import main as opt_main
from qcomp.tools.qcomp_run import main

PROGRAM = "func.func @main(%a: tensor<4xi8>) -> tensor<4xi8> {\n  return %a : tensor<4xi8>\n}\n"


def cli(tmp_path, *argv: str, program: str = PROGRAM):
    p = tmp_path / "p.mlir"
    p.write_text(program)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(p), *argv], io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


NEST = "[" * 200 + "]" * 200
DEEP_DENSE = "[dense<" + "[" * 5000 + "1" + "]" * 5000 + "> : tensor<4xi8>]"
TOO_DEEP = ("--args: nesting too deep: the array or its attributes are nested past the depth "
            "qcomp's parser follows")


@pytest.mark.parametrize("argv, message", [
    ([f"--args={NEST}"], TOO_DEEP),
    ([f"--args={DEEP_DENSE}"], TOO_DEEP),
    (["--input=4xi0=1"], "--input=4xi0=1 (argument 0): element type i0 is not supported "
                         "(integers of 1 to 64 bits)"),
    (["--input=4xi65=1"], "--input=4xi65=1 (argument 0): element type i65 is not supported "
                          "(integers of 1 to 64 bits)"),
    (["--input=99999999999999999999xi8=1"], "--input=99999999999999999999xi8=1 (argument 0): "
                                            "a dimension is larger than 2^63 - 1"),
    (["--input=0x99999999999999999999xi8=1"], "--input=0x99999999999999999999xi8=1 "
                                              "(argument 0): a dimension is larger than "
                                              "2^63 - 1"),
    (["--input=4294967296x0x4294967296xui8="],
     "--input=4294967296x0x4294967296xui8= (argument 0): the nonzero dimensions have 2^63 "
     "elements or more"),
    (["--input=1000000xi8=1", "--max-memory=64K"],
     "--input=1000000xi8=1 (argument 0): 1000000xi8 needs 1000000 bytes, over the memory "
     "limit of 65536 (--max-memory)"),
    (["--input=@/dev/zero"], "--input=@/dev/zero: not a NumPy .npy or .npz file"),
    (["--inputs", "/dev/zero"], "--inputs /dev/zero: not a NumPy .npy or .npz file"),
])
def test_bad_inputs_are_one_line(tmp_path, argv, message):
    code, out, err = cli(tmp_path, *argv)
    assert (code, out, err) == (1, "", f"qcomp-run: error: {message}\n")


def test_a_pipe_is_read_no_further_than_the_memory_limit(tmp_path):
    """A FIFO that starts as a zip archive: its bytes are read up to --max-memory, then
    refused (a regular file's size is not read at all: only its headers)."""
    import os
    import threading

    fifo = tmp_path / "in.npz"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            try:
                f.write(b"PK\x03\x04" + bytes(1 << 20))
            except BrokenPipeError:
                pass
    t = threading.Thread(target=feed)
    t.start()
    code, out, err = cli(tmp_path, f"--input=@{fifo}", "--max-memory=1K")
    t.join()
    assert (code, out, err) == (1, "", f"qcomp-run: error: --input=@{fifo}: not a regular "
                                "file, and longer than the memory limit of 1024 bytes "
                                "(--max-memory)\n")


def test_a_pipe_holding_an_archive_is_read(tmp_path):
    import os
    import threading

    buf = io.BytesIO()
    np.savez(buf, arg0=np.array([1, 2, 3, 4], np.int8))
    fifo = tmp_path / "in.npz"
    os.mkfifo(fifo)
    t = threading.Thread(target=lambda: open(fifo, "wb").write(buf.getvalue()))
    t.start()
    code, out, err = cli(tmp_path, f"--input=@{fifo}")
    t.join()
    assert (code, out, err) == (0, "@main result[0]: 4xi8=[1 2 3 4]\n", "")


BIG = ("func.func @main(%a: tensor<{n}xi8>) -> tensor<{n}xi8> {{\n"
       "  %0 = stablehlo.add %a, %a : tensor<{n}xi8>\n  return %0 : tensor<{n}xi8>\n}}\n")


def test_verify_numerics_counts_every_sample_against_max_memory(tmp_path):
    p = tmp_path / "big.mlir"
    p.write_text(BIG.format(n=300_000_000))  # one sample fits the 4 GiB, 16 do not
    out, err = io.StringIO(), io.StringIO()
    code = opt_main([str(p), "--verify-numerics", "--stablehlo-legalize-quant-to-math"],
                    io.StringIO(""), out, err)
    assert code == 1
    assert err.getvalue().splitlines()[0] == (
        f"{p}:1:1: error: --verify-numerics: 16 samples of the arguments of @main need "
        "4.5 GiB (286.1 MiB each), over the memory limit of 4.0 GiB that qcomp-run also keeps "
        "(--max-memory); give fewer samples (--verify-numerics=14) or check this function with smaller shapes")


def test_samples_are_drawn_in_the_storage_dtype():
    """An i8 argument of 4M elements: the draw's peak is its 4 MiB plus bounded blocks
    (it was 8 bytes per element and more: int64 draws of the whole argument)."""
    from xdsl.dialects.builtin import TensorType, i8

    from qcomp.tools.verify_numerics import DRAW_BLOCK, _draw

    n = 4 * DRAW_BLOCK
    tracemalloc.start()
    a = _draw(TensorType(i8, [n]), np.random.default_rng(0), np.array([0.0]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert a.dtype == np.int8 and a.shape == (n,)
    assert peak < n + 40 * DRAW_BLOCK, peak
    assert a.min() == -128 and a.max() == 127


def test_a_zip_feature_python_lacks_is_a_diagnostic(tmp_path):
    """zipfile raises NotImplementedError for strong encryption (found by the fuzz)."""
    b = io.BytesIO()
    np.savez(b, arg0=np.zeros(4, np.int8))
    raw = bytearray(b.getvalue())
    raw[raw.find(b"PK\x03\x04") + 6] |= 0x40  # general purpose flag bit 6: strong encryption
    raw[raw.find(b"PK\x01\x02") + 8] |= 0x40
    path = tmp_path / "enc.npz"
    path.write_bytes(bytes(raw))
    code, out, err = cli(tmp_path, "--inputs", str(path))
    assert (code, out, err) == (1, "", f"qcomp-run: error: --inputs {path}: unsupported zip "
                                "archive (strong encryption (flag bit 6))\n")


def test_an_encrypted_archive_is_a_diagnostic(tmp_path):
    b = io.BytesIO()
    np.savez(b, arg0=np.zeros(4, np.int8))
    raw = bytearray(b.getvalue())
    raw[raw.find(b"PK\x03\x04") + 6] |= 0x01  # flag bit 0: encrypted
    raw[raw.find(b"PK\x01\x02") + 8] |= 0x01
    path = tmp_path / "enc.npz"
    path.write_bytes(bytes(raw))
    code, out, err = cli(tmp_path, "--inputs", str(path))
    assert code == 1 and out == ""
    assert err.startswith(f"qcomp-run: error: --inputs {path}: unsupported zip archive (File ")
    assert err.endswith("is encrypted, password required for extraction)\n")


@pytest.mark.parametrize("header, message", [
    ("{'descr': '|V0', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
     "arrays of zero-width elements (|V0) are not supported"),
    ("{'descr': '|i1', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
     "the shape (4294967296, 4294967296) has 2^63 elements or more"),
])
def test_headers_past_what_an_array_can_be(tmp_path, header, message):
    path = tmp_path / "x.npy"
    text = header.encode("latin1")
    text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text)
    code, out, err = cli(tmp_path, f"--input=@{path}")
    assert (code, out, err) == (1, "", f"qcomp-run: error: --input=@{path}: {message}\n")
