"""qcomp.quant.jit_cache: the kernels' numba cache is stamped with every kernel source,
so an edit to an inlined helper in another file recompiles the kernels."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lazy import importorskip, lazy_module

importorskip("numba", reason="numba is not installed (pip install -e '.[fast]')")
# numba's kernels, imported when a test first uses them (numba costs each worker's
# collection a second of CPU)
jit_cache = lazy_module("qcomp.quant.jit_cache")
rowwise_bag_kernels = lazy_module("qcomp.quant.rowwise_bag_kernels")
rowwise_kernels = lazy_module("qcomp.quant.rowwise_kernels")


def test_kernels_use_the_sources_stamp():
    for fn in (rowwise_kernels.quantize_8bit, rowwise_bag_kernels.bag_nbit):
        locator = fn._cache._impl.locator
        assert isinstance(locator, jit_cache._KernelStampMixin)
        assert locator.get_source_stamp() == jit_cache.sources_stamp()
    names = {p.name for p in jit_cache.kernel_sources()}
    assert {"rowwise_jit.py", "rowwise_kernels.py", "rowwise_bag_kernels.py"} <= names


def test_the_cache_is_outside_the_source_tree():
    """Under NUMBA_CACHE_DIR when set, else the per-user cache directory; never next
    to the sources."""
    locator = rowwise_kernels.quantize_8bit._cache._impl.locator
    path = Path(locator.get_cache_path()).resolve()
    package = Path(rowwise_kernels.__file__).resolve().parents[1]
    assert package not in path.parents
    if not os.environ.get("NUMBA_CACHE_DIR"):
        assert jit_cache.cache_dir().resolve() in path.parents


def test_cache_dir_follows_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert jit_cache.cache_dir() == tmp_path / "qcomp" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert jit_cache.cache_dir() == Path.home() / ".cache" / "qcomp" / "numba"


def test_the_stamp_follows_every_file(tmp_path: Path):
    a, b = tmp_path / "rowwise_a.py", tmp_path / "rowwise_b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = jit_cache.sources_stamp([a, b])
    b.write_text("y = 3\n")                 # only the helper file changes
    assert jit_cache.sources_stamp([a, b]) != before
    b.write_text("y = 2\n")
    assert jit_cache.sources_stamp([a, b]) == before


def test_other_functions_keep_numbas_stamp(tmp_path: Path):
    other = tmp_path / "elsewhere.py"
    other.write_text("def f():\n    return 1\n")
    assert not jit_cache._is_kernel_file(str(other))
    assert jit_cache._is_kernel_file(rowwise_kernels.__file__)


def test_every_checkout_of_the_same_sources_shares_the_cache():
    """The cache's subdirectory follows the sources' stamp, not the checkout's path: a
    fresh clone (CI) loads what another checkout of the same sources compiled."""
    locator = type(rowwise_kernels.quantize_8bit._cache._impl.locator)
    here = locator.get_suitable_cache_subpath(rowwise_kernels.__file__)
    assert here.endswith(jit_cache.sources_stamp()[:40])
    assert here.startswith("quant_")
    assert locator.get_suitable_cache_subpath("/another/clone/qcomp/quant/x.py") == here
    instance = rowwise_kernels.quantize_8bit._cache._impl.locator
    assert Path(instance.get_cache_path()).name == here
