"""Fuzz qcomp-opt with mutants of the upstream StableHLO quantized conformance programs.

Each mutant (a token dropped, duplicated or swapped, the text truncated, a digit
flipped; fixed seed) must end with exit code 0, or 1 with a `file:line:col: error:`
diagnostic; never an internal error (exit 2) or a traceback. The conformance files are
read from ../shared/conformance/stablehlo next to the repository.
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

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = REPO.parent / "shared" / "conformance" / "stablehlo"
SEED = 20261122
MUTANTS_PER_FAMILY = 220  # 5 families: 1,100 mutants
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
    else:
        raise ValueError(family)
    return "".join(tokens)


FAMILIES = ["drop", "duplicate", "swap", "truncate", "flip_digit"]


@pytest.mark.parametrize("family", FAMILIES)
def test_mutants_give_diagnostics_not_crashes(family: str, tmp_path: Path):
    sources = _sources()
    rng = random.Random(f"{SEED}-{family}")
    failures = []
    exit_codes = {0: 0, 1: 0}
    for n in range(MUTANTS_PER_FAMILY):
        name, text, split = rng.choice(sources)
        mutant = _mutate(text, family, rng)
        argv = ["-", "--split-input-file"] if split else ["-"]
        out, err = io.StringIO(), io.StringIO()
        code = main(argv, stdin=io.StringIO(mutant), stdout=out, stderr=err)
        e = err.getvalue()
        ok = (code == 0 and e == "") or (code == 1 and _DIAGNOSTIC.search(e) is not None)
        if not ok or "Traceback" in e:
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
        f = tmp_path / f"m{n}.mlir"
        f.write_text(_mutate(text, family, rng))
        r = subprocess.run([exe, str(f), *(["-split-input-file"] if split else [])],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode in (0, 1), r.stderr
        assert "Traceback" not in r.stderr
        if r.returncode == 1:
            assert re.search(rf"^{re.escape(str(f))}:\d+:\d+: error: ", r.stderr, re.M), r.stderr
