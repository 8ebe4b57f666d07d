"""A per-axis quant type with many channels parses in time linear in its text: the
body's tokenizer never copies the rest of the text per token (it did, and 100k channels
took 21 s)."""

from __future__ import annotations

from qcomp.dialects.quant.syntax import _BodyParser


class SlicingText(str):
    """A str that adds up the lengths of the slices taken of it."""

    copied = 0

    def __getitem__(self, key):
        out = super().__getitem__(key)
        if isinstance(key, slice):
            SlicingText.copied += len(out)
        return out


def test_tokenizer_copies_no_more_than_the_text():
    body = "i8:f32:0, {" + ", ".join(f"{0.5 + i * 1e-6!r}:{i % 7}" for i in range(3000)) + "}"
    text = SlicingText(body)
    SlicingText.copied = 0
    parser = _BodyParser(text)
    assert len(parser.tokens) > 3000 * 3
    assert SlicingText.copied <= 2 * len(body)  # per-token copies would be ~5000 x len
