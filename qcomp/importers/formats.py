"""Which importer reads a file: told by its name or its first bytes, with nothing
heavier than the standard library imported (`qcomp-opt x.mlir` does not load the
importers)."""

from __future__ import annotations


def is_onnx(path: str, raw: bytes) -> bool:
    """A `.onnx` file, or bytes that start as a serialized ModelProto does (field 1,
    `ir_version`, a varint: byte 0x08; MLIR text never starts with that byte)."""
    return path.endswith(".onnx") or raw[:1] == b"\x08"


def is_tflite(name: str, data: bytes) -> bool:
    """A `.tflite` file by name, or by the flatbuffer file identifier `TFL3` at byte 4."""
    return name.endswith(".tflite") or data[4:8] == b"TFL3"
