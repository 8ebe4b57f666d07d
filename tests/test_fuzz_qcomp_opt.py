"""Fuzz qcomp-opt (and qcomp-run) with mutants of upstream StableHLO quantized programs.

Each mutant (a token dropped, duplicated or swapped, the text truncated, a digit
flipped; edge values inside types, dense literals and attributes; stray bytes; deep
nesting; a shape made huge with its literals splats; fixed seed) must end with exit
code 0, or 1 with a `file:line:col: error:` diagnostic; never an internal error (exit
2), a traceback, Python's own words or a peak memory grown by a gigabyte. Mutants that
parse also go through every pass (some with --verify-numerics), and qcomp-run gets
corrupt --input texts and .npy files. The conformance files are read from
../shared/conformance/stablehlo next to the repository.
"""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qcomp.tools.qcomp_opt import main
from tests.sampling import FULL, examples

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = REPO.parent / "shared" / "conformance" / "stablehlo"
SEED = 20261122
MUTANTS_PER_FAMILY = examples(full=150, ci=40)  # 11 families: 440 (QCOMP_FULL=1: 1,650)
SMALLEST_FILES = 30

_TOKEN = re.compile(r"\s+|\"(?:[^\"\\\n]|\\.)*\"|[%@#!^]?[\w.$-]+|.", re.S)
_DIAGNOSTIC = re.compile(r"^(<stdin>|[^\n]+\.mlir):\d+:\d+: error: |^loc\(unknown\): error: ", re.M)


def _sources() -> list[tuple[str, str, bool]]:
    """(name, text, split) of the smallest conformance programs."""
    if not CONFORMANCE.is_dir():
        pytest.skip(f"conformance programs not found at {CONFORMANCE} (shared data absent)")
    files = sorted((CONFORMANCE / "testdata_quantized").glob("*.mlir"),
                   key=lambda p: p.stat().st_size)[:SMALLEST_FILES]
    out = [(p.name, p.read_text(), False) for p in files]
    interp = CONFORMANCE / "interpret" / "quantized_ops.mlir"
    if interp.exists():
        out.append((interp.name, interp.read_text(), True))
    if not out:
        pytest.skip(f"no conformance programs in {CONFORMANCE}")
    return out


def _mutate(text: str, family: str, rng: random.Random) -> str:
    tokens = _TOKEN.findall(text)
    solid = [i for i, t in enumerate(tokens) if not t.isspace()]
    if family == "drop":
        i = rng.choice(solid)
        del tokens[i]
    elif family == "duplicate":
        i = rng.choice(solid)
        tokens.insert(i, tokens[i])
    elif family == "swap":
        i = rng.choice(solid)
        near = [j for j in solid if j != i and abs(j - i) <= 12]
        j = rng.choice(near) if near and rng.random() < 0.7 else rng.choice(solid)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif family == "truncate":
        return text[:rng.randrange(len(text))]
    elif family == "flip_digit":
        digits = [m.start() for m in re.finditer(r"[0-9]", text)]
        k = rng.choice(digits)
        new = rng.choice([d for d in "0123456789" if d != text[k]])
        return text[:k] + new + text[k + 1:]
    elif family in _SPOT_MUTATIONS:
        return _SPOT_MUTATIONS[family](text, rng)
    else:
        raise ValueError(family)
    return "".join(tokens)


def _inside(text: str, pattern: str, rng: random.Random) -> tuple[int, int] | None:
    spans = [m.span() for m in re.finditer(pattern, text)]
    return rng.choice(spans) if spans else None


def _replace_number(text: str, span: tuple[int, int], rng: random.Random) -> str:
    """A number inside `span` replaced by an edge value (huge, negative, wide, odd)."""
    start, end = span
    nums = [m.span() for m in re.finditer(r"-?[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?", text[start:end])]
    if not nums:
        return text
    a, b = rng.choice(nums)
    new = rng.choice(["-1", "0", "4294967296", "18446744073709551615", "9" * 30, "9" * 5000,
                      "1e400", "-0.0", "nan", "0x7FC00000", "2147483648", "1.5", "-129", "65536"])
    return text[:start + a] + new + text[start + b:]


def _in_type(text: str, rng: random.Random) -> str:
    span = _inside(text, r"![a-z]+\.[a-z_]+<[^>]*>+|tensor<[^>]*>", rng)
    if span is None:
        return text
    if rng.random() < 0.4:  # the storage type or a width spelled another way
        start, end = span
        piece = re.sub(r"\b(u?i|si|ui)(8|16|32)\b",
                       lambda m: rng.choice(["i0", "i33", "ui8", "si8", "u4", "f8E4M3FN", "f32",
                                             "i16777216", "bf16"]), text[start:end], count=1)
        return text[:start] + piece + text[end:]
    return _replace_number(text, span, rng)


def _in_dense(text: str, rng: random.Random) -> str:
    span = _inside(text, r"dense<[^>]*>", rng)
    if span is None:
        return text
    start, end = span
    body = text[start:end]
    choice = rng.random()
    if choice < 0.3:
        return text[:start] + body.replace("<", "<[[", 1).replace(">", "]]>", 1) + text[end:]
    if choice < 0.45:
        return text[:start] + body.replace("[", "(", 1) + text[end:]
    return _replace_number(text, span, rng)


def _in_attribute(text: str, rng: random.Random) -> str:
    span = _inside(text, r"\b[a-z_]+ = [^,}>\n]+", rng)
    return text if span is None else _replace_number(text, span, rng)


def _bytes(text: str, rng: random.Random) -> str:
    k = rng.randrange(len(text) + 1)
    junk = rng.choice(["\x00", "\r", "\ufeff", "$", "#", "@", "\"", "\\", "\ufffd", "{{{", "]]]",
                       "\t", "\x7f", "//", "^bb0:"])
    return text[:k] + junk + text[k:]


def _nest(text: str, rng: random.Random) -> str:
    depth = rng.choice([50, 200, 2000])
    span = _inside(text, r"dense<\[|\{\{", rng)
    if span is None:
        return text
    start, end = span
    opener = text[end - 1]
    closer = {"[": "]", "{": "}"}[opener]
    close_at = text.find(closer, end)
    if close_at < 0:
        return text
    return (text[:end] + opener * depth + text[end:close_at] + closer * depth + text[close_at:])


HUGE_ELEMENTS = 1 << 29
"""Elements of the shapes `_huge_splat` writes: 2 GiB as f32, so a splat stored element
by element shows in the peak memory (`_peak_mb`)."""
_DENSE_TYPED = re.compile(r"dense<([^<>]*)>(\s*:\s*tensor<)((?:[0-9]+x)+)")
_FIRST_ELEMENT = re.compile(r"\([^()]*\)|-?0x[0-9a-fA-F]+|-?[0-9][0-9.e+-]*|true|false")


def _huge_splat(text: str, rng: random.Random) -> str:
    """One shape of a dense literal made huge everywhere in the program (first size
    HUGE_ELEMENTS, the others 1), every literal of that shape a splat of its first
    element: a program that may still verify, with constants of billions of elements."""
    found = list(_DENSE_TYPED.finditer(text))
    if not found:
        return text
    dims = rng.choice(found).group(3)
    rank = dims.count("x")
    huge = f"{HUGE_ELEMENTS}x" + "1x" * (rank - 1)

    def splat(m: re.Match) -> str:
        if m.group(3) != dims:
            return m.group(0)
        first = _FIRST_ELEMENT.search(m.group(1))
        return f"dense<{first.group(0) if first else m.group(1)}>{m.group(2)}{huge}"

    text = _DENSE_TYPED.sub(splat, text)
    return re.sub(rf"tensor<{dims}", f"tensor<{huge}", text)


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_SPOT_MUTATIONS = {"type": _in_type, "dense": _in_dense, "attribute": _in_attribute,
                   "bytes": _bytes, "nest": _nest, "huge_splat": _huge_splat}

FAMILIES = ["drop", "duplicate", "swap", "truncate", "flip_digit", *_SPOT_MUTATIONS]

_RAW_PYTHON = re.compile(
    r"Traceback|internal error|Error: |Exception|maximum recursion|Exceeds the limit|"
    r"cannot fit 'int'|object has no attribute|not subscriptable|unsupported operand|"
    r"index out of range|NoneType|invalid literal for int|RuntimeWarning")
"""Python's own words, which a diagnostic must never be."""


@pytest.mark.parametrize("family", FAMILIES)
def test_mutants_give_diagnostics_not_crashes(family: str, tmp_path: Path):
    sources = _sources()
    rng = random.Random(f"{SEED}-{family}")
    failures = []
    exit_codes = {0: 0, 1: 0}
    peak = _peak_mb()
    for n in range(MUTANTS_PER_FAMILY):
        name, text, split = rng.choice(sources)
        mutant = _mutate(text, family, rng)
        argv = ["-", "--split-input-file"] if split else ["-"]
        out, err = io.StringIO(), io.StringIO()
        code = main(argv, stdin=io.StringIO(mutant), stdout=out, stderr=err)
        e = err.getvalue()
        ok = (code == 0 and e == "") or (code == 1 and _DIAGNOSTIC.search(e) is not None)
        if _peak_mb() > peak + 1024:  # a constant stored element by element
            e += f"\n(peak memory grew to {_peak_mb():.0f} MB)"
            ok, peak = False, _peak_mb()
        if not ok or _RAW_PYTHON.search(e):
            path = tmp_path / f"{family}-{n}-{name}"
            path.write_text(mutant)
            failures.append(f"{path} (from {name}): exit {code}: {e[:400]}")
        else:
            exit_codes[code] += 1
    assert not failures, (f"{len(failures)} of {MUTANTS_PER_FAMILY} {family} mutants crashed "
                          "qcomp-opt:\n" + "\n".join(failures[:5]))
    # the mutants must exercise both outcomes, or the test tests nothing
    assert exit_codes[1] > 0


def test_mutants_as_a_program(tmp_path: Path):
    """A few mutants through the installed console script: same contract."""
    exe = shutil.which("qcomp-opt", path=os.path.dirname(sys.executable) + os.pathsep
                       + os.environ.get("PATH", ""))
    if exe is None:
        pytest.skip("qcomp-opt is not installed")
    sources = _sources()
    rng = random.Random(SEED)
    for n, family in enumerate(FAMILIES):
        name, text, split = rng.choice(sources)
        if n % 6 and not FULL:  # CI: one cold process for one family in six
            continue
        f = tmp_path / f"m{n}.mlir"
        f.write_text(_mutate(text, family, rng))
        r = subprocess.run([exe, str(f), *(["-split-input-file"] if split else [])],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode in (0, 1), r.stderr
        assert "Traceback" not in r.stderr
        if r.returncode == 1:
            assert re.search(rf"^{re.escape(str(f))}:\d+:\d+: error: ", r.stderr, re.M), r.stderr


PASS_MUTANTS = 12
"""Parsing mutants run through each registered pass (and a third of them also through
--verify-numerics): a mutant that verifies must also survive every pass."""


def _parsing_mutants(count: int, rng: random.Random) -> list[tuple[str, str, bool]]:
    sources = _sources()
    found = []
    for _ in range(count * 20):
        name, text, split = rng.choice(sources)
        family = rng.choice(["flip_digit", "type", "attribute", "dense", "drop", "huge_splat"])
        mutant = _mutate(text, family, rng)
        argv = ["-", "--split-input-file"] if split else ["-"]
        if main(argv, stdin=io.StringIO(mutant), stdout=io.StringIO(),
                 stderr=io.StringIO()) == 0:
            found.append((f"{family}-{name}", mutant, split))
            if len(found) == count:
                break
    return found


_POOL: list[tuple[str, str, bool]] = []


def _mutants_for(pass_name: str) -> list[tuple[str, str, bool]]:
    """A pass's PASS_MUTANTS parsing mutants: with QCOMP_FULL=1 its own search; in CI a
    sample (drawn by the pass's own seed) of one pool of 4 x PASS_MUTANTS searched once,
    so the passes share the parsing that finds them."""
    rng = random.Random(f"{SEED}-{pass_name}")
    if FULL:
        return _parsing_mutants(PASS_MUTANTS, rng)
    if not _POOL:
        _POOL.extend(_parsing_mutants(4 * PASS_MUTANTS, random.Random(f"{SEED}-pool")))
    return rng.sample(_POOL, min(PASS_MUTANTS, len(_POOL)))


def _pass_names() -> list[str]:
    from qcomp.registry import PASSES
    return sorted(PASSES)


@pytest.mark.parametrize("pass_name", _pass_names())
def test_parsing_mutants_through_every_pass(pass_name: str, tmp_path: Path):
    failures = []
    peak = _peak_mb()
    for n, (name, mutant, split) in enumerate(_mutants_for(pass_name)):
        # (--verify-numerics runs huge shapes too, within its 4 GiB budget: not those)
        numerics = n % 3 == 0 and not name.startswith("huge_splat")
        argv = ["-", f"--{pass_name}", *(["--split-input-file"] if split else []),
                *(["--verify-numerics"] if numerics else [])]
        err = io.StringIO()
        code = main(argv, stdin=io.StringIO(mutant), stdout=io.StringIO(), stderr=err)
        e = err.getvalue()
        ok = code == 0 or (code == 1 and _DIAGNOSTIC.search(e) is not None)
        if _peak_mb() > peak + 1024:  # a constant stored element by element
            e += f"\n(peak memory grew to {_peak_mb():.0f} MB)"
            ok, peak = False, _peak_mb()
        if not ok or _RAW_PYTHON.search(e):
            path = tmp_path / f"{pass_name}-{n}-{name}"
            path.write_text(mutant)
            failures.append(f"{path} {' '.join(argv[1:])}: exit {code}: {e[:400]}")
    assert not failures, "\n".join(failures[:5])


_RUN_PROGRAM = REPO / "examples" / "quantized_add.mlir"
_GOOD_INPUTS = ["4xf32=1,2.5,-3,0.2", "4xf32=0.5,-1,7.25,2"]


def _corrupt_input(text: str, rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.3:
        return _bytes(text, rng)
    if choice < 0.6:
        return _replace_number(text, (0, len(text)), rng)
    k = rng.randrange(len(text))
    return text[:k] + text[k + 1:] if choice < 0.8 else text[:k]


def _corrupt_npy(data: bytes, rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.4:
        return data[:rng.randrange(len(data))]
    k = rng.randrange(len(data))
    return data[:k] + bytes([rng.randrange(256)]) + data[k + 1:]


def test_qcomp_run_with_corrupt_inputs(tmp_path: Path):
    """qcomp-run given corrupt --input texts and .npy files: its result, or a one-line
    `qcomp-run: error:` (exit 1 or 2); never an internal error or Python's words."""
    import numpy as np

    from qcomp.tools.qcomp_run import main as run_main

    rng = random.Random(f"{SEED}-run")
    good = tmp_path / "good.npy"
    np.save(good, np.array([1, 2.5, -3, 0.2], np.float32))
    data = good.read_bytes()
    failures, outcomes = [], set()
    for n in range(120):
        inputs = list(_GOOD_INPUTS)
        k = rng.randrange(2)
        if n % 2:
            bad = tmp_path / f"bad{n}.npy"
            bad.write_bytes(_corrupt_npy(data, rng))
            inputs[k] = f"@{bad}"
        else:
            inputs[k] = _corrupt_input(inputs[k], rng)
        argv = [str(_RUN_PROGRAM), *(f"--input={i}" for i in inputs)]
        err = io.StringIO()
        code = run_main(argv, stdout=io.StringIO(), stderr=err)
        e = err.getvalue()
        outcomes.add(code)
        ok = code == 0 or (code == 1 and re.match(r"qcomp-run: error: |[^\n]+:\d+:\d+: error: ", e))
        if not ok or _RAW_PYTHON.search(e):
            failures.append(f"{argv[1:]}: exit {code}: {e[:400]}")
    assert not failures, "\n".join(failures[:5])
    assert outcomes == {0, 1}
