"""`-o` / `--output` targets (qcomp/tools/output_file.py): devices and FIFOs written
through, symlinks followed, unwritable targets refused as open() refuses them, and a
failure mid-write leaving the old file whole."""

from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from qcomp.tools.output_file import write_output
from tests.tools.test_qcomp_opt import GOOD, opt

ROOT = Path(__file__).resolve().parents[2]


def test_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert opt("-", "-o", str(fifo), stdin=GOOD)[0] == 0
    reader.join(10)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert b"func.func @f(" in got[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_character_devices_stay_devices(device):
    if not os.path.exists(device) or not stat.S_ISCHR(os.stat(device).st_mode):
        pytest.skip(f"{device} is not a character device here")
    code, out, err = opt("-", "-o", device, stdin=GOOD)
    assert stat.S_ISCHR(os.stat(device).st_mode)
    if device == "/dev/full":  # every write fails: reported, not swallowed
        assert code == 1 and "No space left on device" in err
    else:
        assert (code, out, err) == (0, "", "")


def test_symlink_target_is_replaced_and_the_link_kept(tmp_path):
    target = tmp_path / "real.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    assert opt("-", "-o", str(link), stdin=GOOD)[0] == 0
    assert link.is_symlink() and "func.func @f(" in target.read_text()


def test_directory_target_refused_like_open(tmp_path):
    code, _, err = opt("-", "-o", str(tmp_path), stdin=GOOD)
    assert code == 1 and "Is a directory" in err
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []


def _as_nobody(fn) -> int:
    """Exit status of `fn()` run in a forked child with uid 65534 when we are root
    (root may write anything), else as ourselves: 0 if it returned, 1 if it raised
    PermissionError, 2 otherwise."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 2
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            fn()
            status = 0
        except PermissionError:
            status = 1
        finally:
            os._exit(status)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_read_only_file_refused_for_a_user_who_cannot_write_it():
    folder = Path(tempfile.mkdtemp(prefix="qcomp-ro-"))  # pytest's tmp_path is root-only
    try:
        folder.chmod(0o777)  # the folder is writable: only the file's mode protects it
        ro = folder / "ro.mlir"
        ro.write_text("keep")
        ro.chmod(0o444)
        assert _as_nobody(lambda: write_output(str(ro), "new")) == 1
        assert ro.read_text() == "keep"
        assert sorted(p.name for p in folder.iterdir()) == ["ro.mlir"]
    finally:
        shutil.rmtree(folder)


def test_failure_mid_write_keeps_the_old_file(tmp_path):
    old = tmp_path / "out.bin"
    old.write_bytes(b"previous")
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            "from qcomp.tools.output_file import write_output; "
            f"write_output({str(old)!r}, b'x' * 100000)")
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # noqa: E731
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       preexec_fn=limit)
    assert r.returncode != 0 and "File too large" in r.stderr
    assert old.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_qcomp_run_output_is_the_exact_name_and_a_whole_archive(tmp_path):
    prog = tmp_path / "p.mlir"
    prog.write_text("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                    "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n")
    out = tmp_path / "r.bin"
    r = subprocess.run(["qcomp-run", str(prog), "--input=2xf32=1,2.5", "--output", str(out)],
                       capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.mlir", "r.bin"]
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["result0.npy"]
    np.testing.assert_array_equal(np.load(out)["result0"], np.array([2, 5], np.float32))


def test_write_output_text_is_utf8(tmp_path):
    f = tmp_path / "t.mlir"
    write_output(str(f), "// é\n")
    assert f.read_bytes() == "// é\n".encode()


def _run(*argv: str):
    import io

    from qcomp.tools.qcomp_run import main

    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), io.StringIO(""), out, err), out.getvalue(), err.getvalue()


RUN_PROGRAM = "func.func @main(%a: tensor<2xi8>) -> tensor<2xi8> {\n  return %a : tensor<2xi8>\n}\n"


@pytest.mark.parametrize("which", ["program", "hard link of the program", "symlink", "npz"])
def test_qcomp_run_refuses_to_write_over_an_input(tmp_path, which):
    prog = tmp_path / "p.mlir"
    prog.write_text(RUN_PROGRAM)
    npz = tmp_path / "in.npz"
    np.savez(npz, arg0=np.array([1, 2], np.int8))
    target = {"program": prog, "npz": npz}.get(which, tmp_path / "other.mlir")
    if which == "hard link of the program":
        os.link(prog, target)
    elif which == "symlink":
        target.symlink_to(prog)
    before = {p: p.read_bytes() for p in (prog, npz)}
    code, out, err = _run(str(prog), "--inputs", str(npz), "--output", str(target))
    named = npz if which == "npz" else prog
    assert (code, out, err) == (2, "", f"qcomp-run: error: cannot write '{target}': it is "
                                f"the input file '{named}'\n")
    assert {p: p.read_bytes() for p in (prog, npz)} == before


@pytest.mark.parametrize("tool", ["qcomp-opt", "qcomp-run"])
def test_a_hard_linked_output_is_rewritten_in_place(tmp_path, tool):
    """Every name of a hard-linked output sees the new contents (replacing the file by
    rename would leave the other link on the old one)."""
    prog = tmp_path / "p.mlir"
    prog.write_text(RUN_PROGRAM)
    out = tmp_path / "out"
    out.write_bytes(b"old contents, longer than what replaces them? no: shorter" * 50)
    other = tmp_path / "other-name"
    os.link(out, other)
    if tool == "qcomp-opt":
        assert opt(str(prog), "-o", str(out))[0] == 0
        assert other.read_text() == out.read_text() and "func.func @main(" in other.read_text()
    else:
        assert _run(str(prog), "--input=2xi8=1,2", "--output", str(out))[0] == 0
        assert np.load(other)["result0"].tolist() == [1, 2]
    assert out.stat().st_ino == other.stat().st_ino and out.stat().st_nlink == 2
