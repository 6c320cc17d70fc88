"""The report's figures are the same bits on every CPU: numpy's AVX-512 loops for cbrt,
exp, log and power round differently from the C library, so the report's statistics
go through harness.report.methods.libm (the C library's functions, value by value).

The cross-CPU check runs the same figures in two processes, one with numpy's AVX-512
loops turned off (NPY_DISABLE_CPU_FEATURES), and compares them bit for bit; it needs a
CPU with AVX-512, where the two processes take different loops.
"""

from __future__ import annotations

import importlib
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from harness.report.methods import libm
from harness.report.methods.arrays import Floats

ROOT = Path(__file__).resolve().parents[3]

EDGES = [0.0, -0.0, 1.0, -1.0, 1e-310, -1e-310, 1e300, -1e300, 709.9, 710.0, -750.0]
SPECIALS = [math.inf, -math.inf, math.nan]

#: Prints the bits of every figure whose code once went through numpy's vectorised
#: transcendental loops: skew-corrected t ends (cbrt, cubes), Bradley-Terry ratings and
#: their bootstrap (exp, log), and the cross-play section.
CHILD = """
import hashlib
import numpy as np
from harness.report.methods.intervals import skew_t_bounds
from harness.report.ratings import RatedInput, rate
from harness.report.crossplay import crossplay_section
from benchmarks.crossplay import matrix_cells

rng = np.random.default_rng(7)
y = rng.gamma(2.0, 5.0, size=(40, 12))
bounds = skew_t_bounds(y)
board = rng.normal(20, 8, size=120)
inputs = [
    RatedInput(name=f"e{i}", folders=("f",), identity=None,
               cells={(s, "default", "{}"): float(board[s] + i * 0.3 + rng.normal(0, 5))
                      for s in range(120)})
    for i in range(5)
]
ratings = rate("lighthouse", ["f"], inputs)
layout, cells = matrix_cells(3, 3, 120)
section = crossplay_section(layout, cells)
digest = hashlib.sha256()
for part in bounds:
    digest.update(np.ascontiguousarray(part).tobytes())
digest.update(repr(ratings).encode())
digest.update(repr(section).encode())
print(digest.hexdigest())
"""


def _values(rng: np.random.Generator, low: float, high: float) -> Floats:
    return np.concatenate([rng.uniform(low, high, 2000), EDGES, SPECIALS])


@pytest.mark.parametrize(
    ("ours", "theirs", "low", "high"),
    [
        (libm.cbrt, math.cbrt, -1e6, 1e6),
        (libm.exp, math.exp, -700.0, 700.0),
        (libm.log, math.log, 1e-9, 1e9),
        (libm.cube, lambda v: math.pow(v, 3.0), -1e5, 1e5),
    ],
    ids=["cbrt", "exp", "log", "cube"],
)
def test_each_function_is_the_c_librarys_value_by_value(
    ours: Callable[[Floats], Floats], theirs: Callable[[float], float], low: float, high: float
) -> None:
    values = _values(np.random.default_rng(3), low, high).reshape(2, -1)
    got = ours(values)
    assert got.shape == values.shape
    for value, result in zip(values.ravel().tolist(), got.ravel().tolist(), strict=True):
        try:
            expected = theirs(value)
        except (ValueError, OverflowError):
            continue  # the edges numpy answers without raising: checked below
        assert (math.isnan(expected) and math.isnan(result)) or result == expected, value


def test_edges_follow_numpys_ufuncs_without_raising() -> None:
    logs = libm.log(np.array([0.0, -0.0, -1.0, math.inf]))
    assert logs[0] == -math.inf
    assert logs[1] == -math.inf
    assert math.isnan(logs[2])
    assert logs[3] == math.inf
    assert math.isnan(float(libm.log(math.nan)))
    exps = libm.exp(np.array([710.0, -math.inf, math.inf]))
    assert exps.tolist() == [math.inf, 0.0, math.inf]
    cubes = libm.cube(np.array([1e200, -1e200, 2.0]))
    assert cubes.tolist() == [math.inf, -math.inf, 8.0]
    assert libm.cbrt(np.array(-27.0)).shape == ()
    assert float(libm.cbrt(-27.0)) == math.cbrt(-27.0)


def _cpu() -> tuple[dict[str, bool], list[str]]:
    """numpy's view of the CPU (what it has, what numpy dispatches on); the module moved
    in numpy 2."""
    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return dict(module.__cpu_features__), list(module.__cpu_dispatch__)
    return {}, []


def _run_child(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_figures_are_the_same_bits_with_and_without_avx512() -> None:
    features, dispatch = _cpu()
    if not features.get("AVX512F", False):
        pytest.skip("this CPU has no AVX-512: numpy takes the C library's loops already")
    off = [name for name in dispatch if "AVX512" in name or name == "X86_V4"]
    base = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    with_avx512 = _run_child(base)
    without = _run_child({**base, "NPY_DISABLE_CPU_FEATURES": " ".join(off)})
    assert with_avx512 == without
