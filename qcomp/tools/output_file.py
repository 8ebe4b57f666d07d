"""Writing an output file (`qcomp-opt -o`, `qcomp-run --output`) without ever leaving it
half-written, and without replacing what is not a regular file.

- A symlink is followed: its target is what gets written (or replaced).
- An existing file that is not a regular file (`/dev/null`, `/dev/full`, a FIFO) is
  written in place, as a shell redirection would; an error while writing (`/dev/full`:
  no space left) is reported.
- A regular file is written to a temporary file beside it and renamed over it, so a
  failure mid-write (disk full, `ulimit -f`) leaves the old file untouched; the new file
  keeps the old one's permission bits (or gets the umask's, when it is new).
- A regular file with other hard links is written in place, so that every link sees the
  new contents (renaming over it would leave the other names on the old file): its
  length is reserved first (`posix_fallocate`), so a full disk or `ulimit -f` refuses
  the write before the old contents are touched.
- A target the user could not open for writing is refused with the error `open()` would
  give (a read-only file, a directory, a missing folder), before anything is written.
- A target that is one of the run's input files (the same file, by any name or link) is
  refused (`SameFileError`): `qcomp-run prog.mlir --output prog.mlir` would replace the
  program with its results.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable


def _refuse_unwritable(path: str) -> None:
    """Raise `open(path, 'w')`'s OSError, if it would fail, without truncating anything."""
    if os.path.exists(path):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        return
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(directory):
        raise FileNotFoundError(2, "No such file or directory", path)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(13, "Permission denied", path)


class SameFileError(OSError):
    """The output would replace one of the inputs."""


def refuse_inputs(path: str, inputs) -> None:
    """Raise `SameFileError` when `path` is a regular file that is one of `inputs`."""
    target = os.path.realpath(path)
    if not os.path.isfile(target):
        return
    for p in inputs:
        try:
            same = os.path.samefile(target, p)
        except OSError:
            continue
        if same:
            raise SameFileError(0, f"it is the input file '{p}'")


def _write_in_place(target: str, raw: bytes) -> None:
    """`raw` written over a regular file's own inode (a hard-linked file)."""
    fd = os.open(target, os.O_WRONLY)
    try:
        if raw and hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, len(raw))
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(raw))
    finally:
        os.close(fd)


def write_output(path: str, data: bytes | str, inputs=()) -> None:
    """Write `data` (text is UTF-8) to `path` as the module docstring says, unless it
    is one of the files `inputs` names."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = os.path.realpath(path)
    refuse_inputs(target, inputs)
    if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
        with open(target, "wb") as f:  # a device or FIFO: written through
            f.write(raw)
        return
    _refuse_unwritable(target)
    if os.path.exists(target) and os.stat(target).st_nlink > 1:
        _write_in_place(target, raw)
        return
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=".qcomp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        if os.path.exists(target):
            mode = os.stat(target).st_mode & 0o7777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


WriteFn = Callable[[str, bytes | str], None]
