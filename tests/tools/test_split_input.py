"""`--split-input-file` in linear time: newlines before each chunk are counted once (not
rescanned from the start for every chunk), chunks are made one at a time, and a chunk's
line table is built only when a diagnostic needs it."""

from __future__ import annotations

from qcomp.tools.cli import split_chunks
from qcomp.tools.diagnostics import SourceFile


class CountingText(str):
    """A str that adds up how many characters `count` scans."""

    scanned = 0

    def count(self, sub, start=0, end=None):  # type: ignore[override]
        end = len(self) if end is None else end
        CountingText.scanned += max(0, end - start)
        return super().count(sub, start, end)


def test_chunks_keep_the_files_line_numbers():
    text = "a\n// -----\nb\n\n// -----\nc"
    assert list(split_chunks(text, True)) == ["a\n", "\n\nb\n\n", "\n\n\n\n\nc"]
    assert list(split_chunks(text, False)) == [text]


def test_newlines_are_counted_once():
    chunk = "func.func @f() {\n  return\n}\n"
    text = CountingText("// -----\n".join([chunk] * 500))
    CountingText.scanned = 0
    chunks = split_chunks(text, True)
    first = next(chunks)  # made lazily: one chunk at a time
    assert first == chunk
    rest = list(chunks)
    assert len(rest) == 499 and rest[-1].count("\n") == text.count("\n")
    assert CountingText.scanned <= 2 * len(text)  # quadratic would be ~250 x len(text)


def test_line_table_built_only_when_asked():
    source = SourceFile("x", "\n" * 100000 + "func.func")
    assert source._line_starts is None
    assert source.line_col(100001) == (100001, 2)
    assert source._line_starts is not None
