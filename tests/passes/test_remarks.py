"""Remarks go to the `Remarks` collecting around a pass run, and nowhere otherwise (an
embedder running passes holds no growing list)."""

from __future__ import annotations

import threading

from xdsl.dialects import test as test_dialect

from qcomp.passes.utils import diagnostics
from qcomp.passes.utils.diagnostics import Remarks, remark


def test_a_remark_outside_a_collector_is_kept_nowhere():
    op = test_dialect.TestOp()
    remark(op, "nobody listens")
    assert not any(isinstance(v, list) and v for v in vars(diagnostics).values())
    remarks = Remarks()
    with remarks.collecting():
        pass
    assert remarks.items == []


def test_remarks_are_collected_in_order_and_taken():
    a, b = test_dialect.TestOp(), test_dialect.TestOp()
    remarks = Remarks()
    with remarks.collecting():
        remark(a, "first")
        remark(b, "second")
    remark(a, "after the run")
    assert remarks.take() == [(a, "first"), (b, "second")]
    assert remarks.items == []


def test_collectors_nest_and_threads_do_not_share_one():
    op = test_dialect.TestOp()
    outer, inner, other = Remarks(), Remarks(), Remarks()

    def elsewhere():
        with other.collecting():
            remark(op, "other thread")

    with outer.collecting():
        remark(op, "outer")
        with inner.collecting():
            remark(op, "inner")
            t = threading.Thread(target=elsewhere)
            t.start()
            t.join()
        remark(op, "outer again")
    assert [m for _, m in outer.items] == ["outer", "outer again"]
    assert [m for _, m in inner.items] == ["inner"]
    assert [m for _, m in other.items] == ["other thread"]
