"""Running a module: entry selection, inputs, the memory budget, collected checks.

`run(module, inputs, semantics=...)` runs `@main` (or `entry`), or, when the module has
no `@main`, every function without arguments (the layout of StableHLO's interpreter
tests). Each function's outcome is a `FunctionRun`: results, check results, and the
`RunError` that stopped it, if any.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, OpImplResult, PythonValues, ReturnedValues, Successor
from xdsl.ir import Block, Operation, Region

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import Elementwise, WorkingMemory
from qcomp.interpreter.builtin_functions import BuiltinFunctions
from qcomp.interpreter.checks import CheckResult, log_of
from qcomp.interpreter.errors import MemoryLimitError, RunError
from qcomp.interpreter.errors import fmt_bytes as _fmt_bytes
from qcomp.interpreter.func_functions import FuncFunctions
from qcomp.interpreter.quantized import QuantSemantics
from qcomp.interpreter.run_output import RunOutput
from qcomp.interpreter.stablehlo_functions import StablehloFunctions, run_elementwise
from qcomp.interpreter.values import Token, check_input, element_type, numpy_dtype, quant_of, shape_of

if TYPE_CHECKING:
    from qcomp.interpreter.process_grid import Process
    from qcomp.interpreter.straight_line import BlockProgram

DEFAULT_MAX_MEMORY = 4 << 30


@dataclass
class FunctionRun:
    """Outcome of running one function."""

    name: str
    results: list[np.ndarray] = field(default_factory=list)
    result_types: list[Any] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    error: RunError | None = None
    printed: list[str] = field(default_factory=list)
    """What `interpreter.print` wrote, in order (each entry ends in a newline)."""

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks)


def _nbytes(t) -> int:
    try:
        shape = shape_of(t)
        e = quant_of(t) or element_type(t)
        return math.prod(shape) * numpy_dtype(e).itemsize
    except RunError:
        return 0


def _working_bytes(op: Operation) -> int:
    """Bytes an op may hold at once: its results plus the scratch it declares
    (`WorkingMemory`: a contraction's float64 operands and patches)."""
    total = sum(_nbytes(r.type) for r in op.results)
    scratch = op.get_trait(WorkingMemory)
    return total if scratch is None else total + scratch.scratch(op)


@dataclass
class Preparation:
    """What every run of a module under one semantics and memory budget reuses: the
    interpreter functions (registered afresh in each run's interpreter, a dictionary
    update) and each op's plan, made the first time the op runs: its implementation,
    found once, and its memory estimate, checked once."""

    semantics: str | QuantSemantics = "spec"
    max_memory: int = DEFAULT_MAX_MEMORY
    dialects: frozenset[str] = frozenset()
    """The dialects of the module's ops: only their interpreter functions are loaded."""
    op_modules: frozenset[str] | None = None
    """The modules defining the module's op classes (`qcomp.dialects.stablehlo.control`):
    of a dialect whose functions are split by them, only those the ops need are loaded
    (`dialect_functions`); None: all of them."""
    functions: list = field(default_factory=list)
    elementwise: StablehloFunctions | None = None
    plans: dict[Operation, tuple] = field(default_factory=dict)
    block_plans: dict[Block, list] = field(default_factory=dict)
    programs: dict[Block, BlockProgram] = field(default_factory=dict)
    """Each block's straight-line program, made the second time it runs
    (`qcomp.interpreter.straight_line`)."""
    memos: dict = field(default_factory=dict)
    """Per-op facts of the interpreter functions (`qcomp.interpreter.plans.static`)."""

    def __post_init__(self) -> None:
        if not self.functions:
            self.elementwise = StablehloFunctions(self.semantics)
            self.functions = [FuncFunctions(), self.elementwise, BuiltinFunctions(),
                              *dialect_functions(self.dialects, self.semantics, self.op_modules)]


class QcompInterpreter(Interpreter):
    """xDSL's interpreter with diagnostics that name the op, and a memory budget.

    Regions run through `run_ssacfg_region` (xDSL's public method, overridden): each op
    is dispatched from its plan (`Preparation`), found once through the functions
    registered with xDSL's `register_implementations` (its implementation table is read
    directly: xDSL 0.74 has no public lookup), ops that declare an `Elementwise`
    implementation and have no function of their own falling back to it."""

    max_memory: int = DEFAULT_MAX_MEMORY
    elementwise: StablehloFunctions | None = None
    """Runs ops that declare an `Elementwise` implementation and have no function of
    their own (`stablehlo_functions.run_elementwise`)."""
    plans: dict[Operation, tuple]
    """Each op's `(functions, implementation, operands, results)`, from
    `Preparation.plans`."""
    memos: dict
    """`Preparation.memos`."""
    block_plans: dict[Block, list]
    """Each block's `(op, plan)` list, from `Preparation.block_plans`."""
    programs: dict[Block, BlockProgram]
    """`Preparation.programs`."""

    def _plan(self, op: Operation) -> tuple:
        """`(functions, implementation, operands, results)` of `op`, made once."""
        entry = self._impls._impl_dict.get(type(op))  # xDSL has no public lookup
        if entry is None and self.elementwise is not None and op.has_trait(Elementwise):
            entry = (self.elementwise, run_elementwise)  # the op's declared NumPy function
        if entry is None:
            raise RunError(f"unsupported operation '{op.name}'", op)
        need = _working_bytes(op)
        if need > self.max_memory:
            raise MemoryLimitError(
                f"'{op.name}' would need about {_fmt_bytes(need)}, over the memory limit of "
                f"{_fmt_bytes(self.max_memory)} (--max-memory)", op)
        plan = self.plans[op] = (*entry, tuple(op.operands), tuple(op.results))
        return plan

    def _call(self, op: Operation, plan: tuple, inputs) -> OpImplResult:
        ft, fn = plan[0], plan[1]
        try:
            result = fn(ft, self, op, inputs)
        except RunError as e:
            if e.op is None:
                e.op = op
            raise
        except (ValueError, TypeError, IndexError, ArithmeticError, AssertionError,
                AttributeError, KeyError, MemoryError) as e:
            raise RunError(f"cannot evaluate '{op.name}': {e}", op) from e
        if len(result.values) != len(op.results):
            raise RunError(f"'{op.name}' produced {len(result.values)} values for "
                           f"{len(op.results)} results", op)
        return result

    def run_ssacfg_region(self, region: Region, args: PythonValues, name: str = "unknown"
                          ) -> PythonValues:
        """xDSL's loop (each block in a new scope; a terminator returns or branches),
        reading each block's plans instead of deriving operands and implementations; a
        block run before runs its straight-line program (`straight_line.run_block`)."""
        results: PythonValues = ()
        block = region.blocks.first
        scopes = 0
        while block is not None:
            self.push_scope(name)
            scopes += 1
            self.set_values(zip(block.args, args))
            steps = self.block_plans.get(block)
            current, block = block, None
            if steps is not None:  # (straight_line loads with the first block run twice)
                from qcomp.interpreter.straight_line import compile_block, run_block

                program = self.programs.get(current)
                if program is None:
                    program = self.programs[current] = compile_block(self, current, steps)
                term = run_block(self, program, args)
                if isinstance(term, ReturnedValues):
                    results = term.values
                elif isinstance(term, Successor):
                    block, args = term
                continue
            for op, plan in steps if steps is not None else self._steps(current):
                result = self._call(op, plan, self.get_values(plan[2]))
                self.set_values(zip(plan[3], result.values))
                term = result.terminator_value
                if term is not None:
                    if isinstance(term, ReturnedValues):
                        results = term.values
                    elif isinstance(term, Successor):
                        block, args = term
                    break
        for _ in range(scopes):
            self.pop_scope()
        return results

    def _steps(self, block: Block):
        """`(op, plan)` of each op of `block`, planned as it is reached; the list is
        kept once the last op is planned."""
        made = []
        op = block.first_op
        while op is not None:
            made.append((op, self.plans.get(op) or self._plan(op)))
            if op.next_op is None:
                self.block_plans[block] = made
            yield made[-1]
            op = op.next_op


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp)]


def entry_functions(module: ModuleOp, entry: str | None = None) -> list[func.FuncOp]:
    """`entry` if given, else `@main`, else `@main_graph` (an imported ONNX graph), else
    every function without arguments."""
    funcs = _functions(module)
    if entry is not None:
        chosen = [f for f in funcs if f.sym_name.data == entry]
        if not chosen:
            raise RunError(f"no function named @{entry}")
        return chosen
    for name in ("main", "main_graph"):
        main = [f for f in funcs if f.sym_name.data == name]
        if main:
            return main
    return [f for f in funcs if not f.function_type.inputs.data and f.body.blocks.first is not None]


_SEMANTICS_SENSITIVE_OPS = (sh.DotGeneralOp, sh.DotOp, sh.ConvolutionOp, sh.ReduceOp,
                            sh.ReduceWindowOp)


def semantics_matter(module: ModuleOp) -> bool:
    """Whether `spec` and `stablehlo` semantics can give different results for `module`:
    it has quantized values, or contractions/reductions (float sums run in float64 under
    `spec`, term by term in the element type under `stablehlo`; integer convolutions wrap
    to the lhs type under `stablehlo`)."""
    for op in module.walk():
        if isinstance(op, _SEMANTICS_SENSITIVE_OPS):
            return True
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if quant_of(v.type) is not None:
                return True
    return False


def prepare(module: ModuleOp, semantics: str | QuantSemantics = "spec",
            max_memory: int = DEFAULT_MAX_MEMORY) -> Preparation:
    """A `Preparation` for runs of `module` (its dialects' functions)."""
    dialects: set[str] = set()
    modules: set[str] = set()
    for op in module.walk():
        dialects.add(op.name.partition(".")[0])
        modules.add(type(op).__module__)
    return Preparation(semantics, max_memory, frozenset(dialects), frozenset(modules))


def make_interpreter(module: ModuleOp, semantics: str | QuantSemantics = "spec",
                     max_memory: int = DEFAULT_MAX_MEMORY,
                     preparation: Preparation | None = None) -> QcompInterpreter:
    """A fresh interpreter (values, check log, prints) for one run; `preparation` (of
    the same semantics and budget) shares its functions and op plans."""
    prep = preparation if preparation is not None else prepare(module, semantics, max_memory)
    interp = QcompInterpreter(module)
    interp.max_memory = prep.max_memory
    interp.elementwise = prep.elementwise
    interp.plans = prep.plans
    interp.memos = prep.memos
    interp.block_plans = prep.block_plans
    interp.programs = prep.programs
    for functions in prep.functions:
        interp.register_implementations(functions)
    return interp


_OPS = "qcomp.dialects.stablehlo"
STABLEHLO_FUNCTIONS = (
    ("stablehlo_control_functions", "StablehloControlFunctions", (f"{_OPS}.control",)),
    ("stablehlo_scatter_functions", "StablehloScatterFunctions", (f"{_OPS}.scatter", f"{_OPS}.sort")),
    ("dynamic_functions", "DynamicFunctions", (f"{_OPS}.dynamic",)),
    ("linalg_functions", "LinalgFunctions", (f"{_OPS}.complex", f"{_OPS}.linalg")),
    ("collective_functions", "CollectiveFunctions", (f"{_OPS}.collectives",)),
    ("random_functions", "RandomFunctions", (f"{_OPS}.linalg",)),
)
"""The interpreter functions of StableHLO ops apart from `StablehloFunctions` (always
registered): `(module, class, op modules)`, loaded for a program with an op defined in
one of the op modules; `tests/interpreter/test_dialect_functions.py` checks the table
against the functions' registrations."""


def _functions_of(dialect: str, semantics: str | QuantSemantics,
                  op_modules: frozenset[str] | None = None) -> list:
    """The interpreter functions of the ops of `dialect`, imported here: a run loads
    only those of the dialects its program uses (no numba without a rowwise op, no
    onnx functions without an onnx op) and, for StableHLO, of the modules defining its
    ops (`op_modules`: no scatter functions without a scatter or sort; None: all)."""
    if dialect == "stablehlo":
        return [getattr(importlib.import_module(f"qcomp.interpreter.{module}"), name)()
                for module, name, ops in STABLEHLO_FUNCTIONS
                if op_modules is None or not op_modules.isdisjoint(ops)]
    if dialect == "chlo":
        from qcomp.interpreter.chlo_functions import ChloFunctions

        return [ChloFunctions()]
    if dialect == "quant":
        from qcomp.interpreter.quant_functions import QuantFunctions

        return [QuantFunctions(semantics)]
    if dialect == "tosa":
        from qcomp.interpreter.tosa_functions import TosaFunctions

        return [TosaFunctions()]
    if dialect == "arith":
        from qcomp.interpreter.arith_functions import ArithFunctions

        return [ArithFunctions()]
    if dialect == "math":
        from qcomp.interpreter.math_functions import MathFunctions

        return [MathFunctions()]
    if dialect == "rowwise":
        from qcomp.interpreter.rowwise_functions import RowwiseFunctions

        return [RowwiseFunctions()]
    if dialect in ("shape", "tensor"):
        from qcomp.interpreter.shape_functions import ShapeFunctions

        return [ShapeFunctions()]
    if dialect == "check":
        from qcomp.interpreter.check_functions import CheckFunctions
        from qcomp.interpreter.probe_functions import ProbeFunctions

        return [CheckFunctions(), ProbeFunctions()]  # ProbeFunctions: expect_serialized_eq
    if dialect == "interpreter":
        from qcomp.interpreter.collective_functions import CollectiveFunctions
        from qcomp.interpreter.probe_functions import ProbeFunctions

        return [ProbeFunctions(), CollectiveFunctions()]
    if dialect == "onnx":
        from qcomp.interpreter.onnx_float_functions import onnx_float_functions
        from qcomp.interpreter.onnx_functions import OnnxFunctions

        # the float ops run as the StableHLO steps of their lowerings (sort, reverse,
        # while: LSTM, ...)
        return [OnnxFunctions(), onnx_float_functions(), *_functions_of("stablehlo", semantics)]
    return []


def dialect_functions(dialects: set[str] | frozenset[str], semantics: str | QuantSemantics = "spec",
                      op_modules: frozenset[str] | None = None) -> list:
    """The interpreter functions the ops of `dialects` need, one of each class
    (`op_modules`: the modules defining the program's op classes, see `_functions_of`)."""
    chosen: dict[type, object] = {}
    for dialect in sorted(dialects):
        for functions in _functions_of(dialect, semantics, op_modules):
            chosen.setdefault(type(functions), functions)
    return list(chosen.values())


def run_function(module: ModuleOp, f: func.FuncOp, inputs: Sequence[np.ndarray] = (),
                 semantics: str | QuantSemantics = "spec",
                 max_memory: int = DEFAULT_MAX_MEMORY, process: Process | None = None,
                 output: RunOutput | None = None,
                 preparation: Preparation | None = None) -> FunctionRun:
    """Run one function (as `process` of a grid, if given); errors are captured in the
    result, never raised. `output`: where prints and probe files go (shared by the
    functions of one module run; a fresh one if not given). `preparation`: reused from
    earlier runs of the module (`Preparation`; its semantics and budget apply)."""
    name = f.sym_name.data
    out = FunctionRun(name, result_types=list(f.function_type.outputs.data))
    interp = make_interpreter(module, semantics, max_memory, preparation)
    interp.run_output = output = output if output is not None else RunOutput()
    mark = len(output.printed)
    if process is not None:
        from qcomp.interpreter.collective_functions import set_process

        set_process(interp, process)
    try:
        arg_types = f.function_type.inputs.data
        if len(inputs) != len(arg_types):
            raise RunError(f"@{name} takes {len(arg_types)} arguments, {len(inputs)} inputs given", f)
        args = tuple(check_input(a, t, f"arg{i}") for i, (a, t) in enumerate(zip(inputs, arg_types)))
        out.results = [r if isinstance(r, tuple | Token) else np.asarray(r)
                       for r in interp.call_op(f, args)]  # tuples and tokens as they are
    except RunError as e:
        out.error = e
    except RecursionError:
        out.error = RunError("program nesting too deep", f)
    out.checks = list(log_of(interp))
    out.printed = output.printed[mark:]
    return out


def run_on_grid(module: ModuleOp, f: func.FuncOp, inputs: Sequence[np.ndarray],
                num_replicas: int, num_partitions: int, semantics: str = "spec",
                max_memory: int = DEFAULT_MAX_MEMORY,
                output: RunOutput | None = None) -> list[FunctionRun]:
    """`f` run by every process of a `num_replicas x num_partitions` grid (the same
    inputs each), in row-major process order; a process that fails stops the others.
    `output` is shared by the processes (prints in the order they happen)."""
    from qcomp.interpreter.process_grid import ProcessGrid, run_grid

    grid = ProcessGrid(num_replicas, num_partitions)
    output = output if output is not None else RunOutput()

    def work(process: Process) -> FunctionRun:
        r = run_function(module, f, inputs, semantics, max_memory, process, output)
        if r.error is not None:
            grid.fail()
        return r

    return run_grid(grid, work)


def run(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
        semantics: str = "spec", entry: str | None = None,
        max_memory: int = DEFAULT_MAX_MEMORY) -> list[FunctionRun]:
    """Run the module's entry function(s) (see module docstring).

    `inputs`: arrays for the entry's arguments, as a sequence or a mapping
    `{"arg0": ..., "arg1": ...}`; only meaningful with a single entry function.
    """
    QuantSemantics(semantics)  # validates the name
    funcs = entry_functions(module, entry)
    runs = []
    for f in funcs:
        args = _inputs_for(f, inputs)
        runs.append(run_function(module, f, args, semantics, max_memory))
    return runs


def _inputs_for(f: func.FuncOp, inputs) -> list[np.ndarray]:
    n = len(f.function_type.inputs.data)
    if inputs is None:
        if n:
            raise RunError(f"@{f.sym_name.data} takes {n} arguments; pass them with --inputs", f)
        return []
    if isinstance(inputs, Mapping):
        missing = [f"arg{i}" for i in range(n) if f"arg{i}" not in inputs]
        if missing:
            raise RunError(f"inputs have no array named {', '.join(missing)} for @{f.sym_name.data}", f)
        return [inputs[f"arg{i}"] for i in range(n)]
    return list(inputs)
