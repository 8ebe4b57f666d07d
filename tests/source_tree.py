"""One read and one parse of each source file per test process, shared by the static
tests (layout, import graph, dependencies, op references): each used to parse all of
qcomp/ itself (272 files, ~2.5 s of CPU a parse). A file is read again when its size or
modification time changed (the checkers' own tests write files under tmp_path).

The trees are shared: callers walk them and never change them."""

from __future__ import annotations

import ast
import os
from pathlib import Path

_CACHE: dict[str, tuple[tuple[int, int], str, ast.Module | None]] = {}


def _entry(path: Path) -> tuple[tuple[int, int], str, ast.Module | None]:
    key = os.path.abspath(path)
    st = os.stat(key)
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(key)
    if hit is None or hit[0] != stamp:
        hit = (stamp, Path(key).read_text(encoding="utf-8"), None)
        _CACHE[key] = hit
    return hit


def read(path: Path) -> str:
    """The text of `path`."""
    return _entry(path)[1]


def parse(path: Path) -> ast.Module:
    """`ast.parse` of `path` (a syntax error names the file)."""
    stamp, text, tree = _entry(path)
    if tree is None:
        tree = ast.parse(text, filename=str(path))
        _CACHE[os.path.abspath(path)] = (stamp, text, tree)
    return tree
