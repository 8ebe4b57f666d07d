"""qcomp: a quantization compiler in the style of MLIR, on xDSL.

The Python API (`qcomp.api`, docs/api.md) is loaded on first use of one of its names,
so `import qcomp` imports nothing else:

    import qcomp
    module = qcomp.parse_module(text)
    qcomp.run_pipeline(module, "stablehlo-legalize-quant-to-math")
    print(qcomp.print_module(module))
    qcomp.run(module, [x]).results
    qcomp.compile(module)             # compile once, run many (qcomp.backends.compiled)
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # the names for type checkers and editors; never run
    from qcomp.api import (
        FunctionRun,
        IRError,
        PassError,
        PipelineError,
        RunError,
        argument_names,
        compile,
        parse_module,
        print_module,
        run,
        run_pipeline,
    )

_API = ("FunctionRun", "IRError", "PassError", "PipelineError", "RunError",
        "argument_names", "compile", "parse_module", "print_module", "run", "run_pipeline")


def __getattr__(name: str):
    if name in _API:
        from qcomp import api

        return getattr(api, name)
    raise AttributeError(f"module 'qcomp' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])


__all__ = ["FunctionRun", "IRError", "PassError", "PipelineError", "RunError",
           "argument_names", "compile", "parse_module", "print_module", "run", "run_pipeline"]
