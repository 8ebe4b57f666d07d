"""One read and one parse of each source file per test process, shared by the static
tests (layout, import graph, dependencies, op references): each used to parse all of
qcomp/ itself (272 files, ~2.5 s of CPU a parse). A file is read again when its size or
modification time changed (the checkers' own tests write files under tmp_path).

The trees are shared: callers walk them and never change them. `walk(tree)` is
`ast.walk(tree)`'s nodes, in its order, listed once a tree: the checks walk every tree
(some twice, the import graph five times), and ast.walk costs as much as the parse.

The trees are built with the garbage collector off (`paused_gc`, as qcomp parses a
module): the cache grows to about a
million objects, and each full collection during the parse went through all that was
built so far (4.3 s of CPU for 494 files, 1.8 s without). (Frozen afterwards with
`gc.freeze()`, they would make the later tests of the process slower, not faster: the
collector's full collections come more often as the objects it sees are fewer.)"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from qcomp.ir.parser import paused_gc

_CACHE: dict[str, tuple[tuple[int, int], str, ast.Module | None]] = {}
_NODES: dict[int, tuple[ast.AST, tuple[ast.AST, ...]]] = {}
"""id(tree) -> (tree, its nodes): the tree is held, so its id is not reused."""


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
        with paused_gc():
            tree = ast.parse(text, filename=str(path))
        _CACHE[os.path.abspath(path)] = (stamp, text, tree)
    return tree


def walk(tree: ast.AST) -> tuple[ast.AST, ...]:
    """The nodes `ast.walk(tree)` yields, in its order (breadth first, each node's fields
    in `_fields` order); kept for a tree `parse` made, any other tree walked each time."""
    hit = _NODES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    if not any(entry[2] is tree for entry in _CACHE.values()):
        return _walk(tree)
    with paused_gc():
        nodes = _walk(tree)
        _NODES[id(tree)] = (tree, nodes)
    return nodes


def _walk(tree: ast.AST) -> tuple[ast.AST, ...]:
    """ast.walk's nodes, listed: its deque of ast.iter_child_nodes generators, inlined
    (a third of its time)."""
    out = [tree]
    node_type = ast.AST
    append, extend = out.append, out.extend
    for node in out:  # grows as it goes: breadth first
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, node_type):
                append(value)
            elif isinstance(value, list):
                extend([x for x in value if isinstance(x, node_type)])
    return tuple(out)
