"""qcomp: a quantization compiler on xDSL (docs/design.md)."""


def __getattr__(name: str):
    """Lazy exports (importing `qcomp` stays cheap)."""
    if name == "compile":
        from qcomp.backends.compiled import compile

        return compile
    raise AttributeError(f"module 'qcomp' has no attribute '{name}'")
