"""Property tests that check a few examples in the default run and many in the slow one.

The default ``pytest`` leaves out the tests marked ``slow``; CI runs them as a second
step (``pytest -m slow``). :func:`fuzz` makes one property test two cases: ``[N-examples]``
with the few examples, run by default, and ``[M-examples]`` with the many, marked slow.
The property, its strategies and its assertions are the same in both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis.strategies import SearchStrategy

Test = Callable[..., None]


def fuzz(few: int, many: int, **strategies: SearchStrategy[Any]) -> Callable[[Test], Test]:
    """``@given(**strategies)``, run on ``few`` examples by default and on ``many`` with
    the slow sweeps (no deadline in either: the machine may be busy)."""
    if not 0 < few < many:
        raise ValueError(f"want 0 < few < many, got {few} and {many}")

    def decorate(body: Test) -> Test:
        # named as the body it runs (pytest collects it by that name); its checks are
        # the body's own, which hypothesis calls
        def sweep(examples: int) -> None:
            settings(max_examples=examples, deadline=None)(given(**strategies)(body))()

        sweep.__name__, sweep.__qualname__ = body.__name__, body.__qualname__
        sweep.__module__, sweep.__doc__ = body.__module__, body.__doc__
        cases = [
            pytest.param(few, id=f"{few}-examples"),
            pytest.param(many, id=f"{many}-examples", marks=pytest.mark.slow),
        ]
        parametrized: Test = pytest.mark.parametrize("examples", cases)(sweep)
        return parametrized

    return decorate


__all__ = ["fuzz"]
