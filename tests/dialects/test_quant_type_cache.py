"""The quant types' text caches (issue 27): a body read once per text, its end found by a
regex where xDSL scans character by character, its printed text kept per type object.
Each must give what the uncached path gives, errors included."""

from __future__ import annotations

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from qcomp.dialects.quant import types as quant_types
from qcomp.dialects.quant.syntax import body_end
from qcomp.registry import make_context

PER_AXIS = "!quant.uniform<i8<-127:127>:f32:0, {0.5:1,0.25,1.2500000000000001E-1:-3}>"


def _parse_type(text: str):
    return Parser(make_context(), text).parse_type()


def _xdsl_end(content: str, start: int) -> int | str:
    """xDSL's own scan: the closing `>`'s offset, or its error message."""
    parser = Parser(make_context(), content)
    try:
        return parser._raw_scan_balanced(start)  # pyright: ignore[reportPrivateUsage]
    except ParseError as e:
        return e.msg


@pytest.mark.parametrize("content", [
    "<i8:f32, 1.0>", "<a<b>c>>", "<a->b>", "<a-->b>", "<(x)[y]{z}>", "<{a:1, b:{2}}>x>",
    "<a)>", "<a(]>", "<a(>", '<"s>">', "<abc", "<a<b>", "<a->", "<->>",
])
def test_body_end_finds_what_xdsl_finds(content):
    end = body_end(content, 1)
    expected = _xdsl_end(content, 1)
    if end is None:  # the caller then scans as xDSL does
        assert not isinstance(expected, int) or '"' in content
    else:
        assert end == expected


def test_a_repeated_body_is_one_type_and_prints_as_written():
    quant_types._PARSED.clear()
    first, second = _parse_type(PER_AXIS), _parse_type(PER_AXIS)
    assert first == second
    assert str(first) == str(second) == \
        "!quant.uniform<i8<-127:127>:f32:0, {5.000000e-01:1,2.500000e-01,1.250000e-01:-3}>"
    assert len(quant_types._PARSED) == 1


@pytest.mark.parametrize("bad, message", [
    ("!quant.uniform<i8<-127:127>:f32:0, {0.5:1,0.25,1.2500000000000001E-1:-3,}>",
     "expected floating point literal"),
    ("!quant.uniform<i8<-127:127>:f32:0, {0.5:1,0.25}", "Unexpected end of file"),
    ("!quant.uniform<i8<-127:127>:f32:0, {0.5:1,0.0}>", "scale 0.000000e+00 out of expressed"),
    ("!quant.uniform<i8<-127:127>:f32:-1, {0.5:1,0.25}>", "illegal quantized dimension: -1"),
])
def test_an_error_after_a_cached_body_is_reported_where_it_is(bad, message):
    quant_types._PARSED.clear()
    with pytest.raises(ParseError) as uncached:
        _parse_type(bad)
    _parse_type(PER_AXIS)
    with pytest.raises(ParseError) as cached:
        _parse_type(bad)
    assert message in cached.value.msg
    assert str(cached.value) == str(uncached.value)


def test_body_text_is_kept_per_type_object():
    t = _parse_type(PER_AXIS)
    text = t.body_text()
    assert t.body_text() is text
    assert t == _parse_type(PER_AXIS) and hash(t) == hash(_parse_type(PER_AXIS))
