"""qcomp.quant.jit_cache: the kernels' numba cache is stamped with every kernel source,
so an edit to an inlined helper in another file recompiles the kernels."""

from __future__ import annotations

from pathlib import Path

from qcomp.quant import jit_cache, rowwise_bags, rowwise_kernels


def test_kernels_use_the_sources_stamp():
    for fn in (rowwise_kernels.quantize_8bit, rowwise_bags._bag_kernel_nbit):
        locator = fn._cache._impl.locator
        assert isinstance(locator, jit_cache._KernelStampMixin)
        assert locator.get_source_stamp() == jit_cache.sources_stamp()
    names = {p.name for p in jit_cache.kernel_sources()}
    assert {"rowwise_jit.py", "rowwise_kernels.py", "rowwise_bags.py"} <= names


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
