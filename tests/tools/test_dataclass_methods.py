"""`qcomp.tools.dataclass_methods`: dataclasses made with each generated method text
compiled once behave as the standard module makes them."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from qcomp.tools import dataclass_methods


def _classes():
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Other:
        x: int
        y: int = 2
        tags: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(order=True)
    class Plain:
        a: str
        b: float = 0.5

    return Point, Other, Plain


@pytest.mark.skipif(not dataclass_methods.install(), reason="this Python's dataclasses differ")
def test_same_behaviour_shared_code():
    Point, Other, Plain = _classes()
    p = Point(1)
    assert (p.x, p.y, p.tags) == (1, 2, [])
    assert repr(p) == "_classes.<locals>.Point(x=1, y=2, tags=[])"
    assert p == Point(1, 2, []) and p != Other(1) and p != Point(2)
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        hash(p)
    assert hash(Point(1, 2, None)) == hash((1, 2, None))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        p.x = 3
    assert Point(1).tags is not Point(1).tags  # the default factory runs per instance
    assert Plain("a") < Plain("b") and Plain("a", 1.0) > Plain("a")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        Point()
    # two classes with the same fields: one code object, two functions with own qualnames
    assert Point.__eq__ is not Other.__eq__
    assert Point.__eq__.__code__ is Other.__eq__.__code__
    assert Point.__setattr__.__code__ is Other.__setattr__.__code__
    assert Point.__eq__.__qualname__.endswith("Point.__eq__")
    assert Other.__eq__.__qualname__.endswith("Other.__eq__")


def test_library_import_keeps_standard_dataclasses():
    """`import qcomp` (and the API) never touches `dataclasses`; the tools package does."""
    code = ("import dataclasses; f = dataclasses._create_fn; import qcomp.registry; "
            "assert dataclasses._create_fn is f; import qcomp.tools; "
            "print(dataclasses._create_fn is not f)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str((3, 10) <= sys.version_info[:2] <= (3, 12))


DRIVER = """
import contextlib, io, sys
from qcomp.tools import dataclass_methods as d
loaded = set(d._STORED)
from qcomp.tools.qcomp_opt import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main([sys.argv[1]])
print(code, len(loaded), len(d._USED - loaded), hash(out.getvalue()))
"""


@pytest.mark.skipif(not dataclass_methods.install(), reason="this Python's dataclasses differ")
def test_methods_kept_between_runs(tmp_path):
    """The first run writes the compiled methods beside the `.pyc` files, the next one
    compiles none of them again and prints the same; a damaged file is ignored and
    written again; under PYTHONDONTWRITEBYTECODE nothing is written.

    (Only the first run compiles every module from source into the empty pycache: ~2 s
    of CPU; the others read the `.pyc` files it wrote.)"""
    import os
    from pathlib import Path

    example = str(Path(__file__).resolve().parents[2] / "examples" / "quantized_add.mlir")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), PYTHONHASHSEED="0")

    def run(**extra):
        proc = subprocess.run([sys.executable, "-c", DRIVER, example], capture_output=True,
                              text=True, env={**env, **extra}, check=True)
        return [int(x) for x in proc.stdout.split()]

    cache = list((tmp_path / "pycache").rglob("dataclass_methods.*.methods"))
    assert cache == []
    code, loaded, compiled, out = run()
    assert (code, loaded) == (0, 0) and compiled > 100
    [cache] = tmp_path.rglob("dataclass_methods.*.methods")
    assert run() == [0, compiled, 0, out]
    damaged = cache.read_bytes()[:1000]  # cut short
    cache.write_bytes(damaged)
    # ignored; under PYTHONDONTWRITEBYTECODE neither written again nor written elsewhere
    assert run(PYTHONDONTWRITEBYTECODE="1") == [0, 0, compiled, out]
    assert list(tmp_path.rglob("*.methods")) == [cache] and cache.read_bytes() == damaged
    assert run() == [0, 0, compiled, out]
    assert run() == [0, compiled, 0, out]
