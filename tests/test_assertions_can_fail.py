"""No test asserts something that holds whatever the code does.

A static check over every Python file under tests/: it fails on the shapes of
assertion that cannot fail (``assert True``, ``... or True``, a value compared with
itself), on handlers that swallow a failed assertion, and on test functions that
check nothing at all. The fixtures below show each shape it catches.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: Comparisons that always hold, or never, when both sides are the same expression.
_SELF_COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.LtE, ast.GtE, ast.Lt, ast.Gt)
#: Calls that check something by themselves (pytest.raises, a JSON schema validator, ...).
_CHECKING_CALLS = {"raises", "fail", "warns", "skip", "importorskip", "xfail", "validate"}


@dataclass(frozen=True)
class Finding:
    """One assertion that cannot fail, where it is and why."""

    where: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.why}"


def _is_truthy_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and bool(node.value)


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _checks(node: ast.AST, checkers: set[str]) -> bool:
    """Whether ``node`` holds an assert or calls something that checks."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            return True
        if isinstance(sub, ast.Call):
            name = _called_name(sub)
            if name in _CHECKING_CALLS or name in checkers:
                return True
            if isinstance(sub.func, ast.Subscript):  # a table of checks: CHECKS[name](...)
                return True
    return False


def checking_functions(trees: list[ast.Module]) -> set[str]:
    """Names of helper functions that check something (directly or through another)."""
    defs = {
        node.name: node
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    checkers: set[str] = set()
    for _ in range(len(defs) + 1):  # each round adds a name or is the last
        grown = {name for name, node in defs.items() if _checks(node, checkers)}
        if grown <= checkers:
            break
        checkers |= grown
    return checkers


def findings(tree: ast.Module, where: str, checkers: set[str]) -> Iterator[Finding]:
    """Every assertion in ``tree`` that cannot fail."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            test = node.test
            if _is_truthy_constant(test):
                yield Finding(where, node.lineno, "asserts a constant")
            if (
                isinstance(test, ast.BoolOp)
                and isinstance(test.op, ast.Or)
                and any(_is_truthy_constant(value) for value in test.values)
            ):
                yield Finding(where, node.lineno, "'or' with a true constant always holds")
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
                if isinstance(op, _SELF_COMPARISONS) and ast.dump(left) == ast.dump(right):
                    yield Finding(where, node.lineno, f"compares {ast.unparse(left)} with itself")
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                caught = ast.unparse(handler.type) if handler.type else "everything"
                swallows = "AssertionError" in caught or caught in {
                    "everything",
                    "Exception",
                    "BaseException",
                }
                if swallows and any(isinstance(s, ast.Assert) for s in ast.walk(node)):
                    yield Finding(where, handler.lineno, f"catches {caught} around an assert")
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test")
            and not _checks(node, checkers)
        ):
            yield Finding(where, node.lineno, f"{node.name} checks nothing")


def _parse_tests() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(TESTS.parent)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(TESTS.rglob("*.py"))
    }


def test_no_test_asserts_what_always_holds() -> None:
    trees = _parse_tests()
    assert len(trees) > 30  # the walk really covers the test files
    checkers = checking_functions(list(trees.values()))
    found = [str(f) for where, tree in trees.items() for f in findings(tree, where, checkers)]
    assert found == []


# --- the check itself catches each shape ----------------------------------------------

VACUOUS = {
    "constant": "def test_a():\n    assert True\n",
    "or_true": "def test_a(x):\n    assert x == 1 or True\n",
    "self_equal": "def test_a(f):\n    assert f(2) == f(2)\n",
    "self_is": "def test_a(x):\n    assert x is x\n",
    "swallowed": "def test_a(x):\n    try:\n        assert x\n    except AssertionError:\n        pass\n",
    "bare_except": "def test_a(x):\n    try:\n        assert x\n    except:\n        pass\n",
    "checks_nothing": "def test_a(x):\n    x.load()\n",
    "helper_checks_nothing": "def run(x):\n    x.load()\n\ndef test_a(x):\n    run(x)\n",
}


@pytest.mark.parametrize("name", sorted(VACUOUS))
def test_the_check_catches(name: str) -> None:
    tree = ast.parse(VACUOUS[name])
    assert list(findings(tree, name, checking_functions([tree])))


SOUND = {
    "plain": "def test_a(x):\n    assert x == 1\n",
    "raises": "def test_a(x):\n    with pytest.raises(ValueError):\n        x()\n",
    "helper": "def check(x):\n    assert x\n\ndef test_a(x):\n    check(x)\n",
    "helper_of_helper": "def check(x):\n    assert x\n\ndef run(x):\n    check(x)\n\ndef test_a(x):\n    run(x)\n",
    "different_calls": "def test_a(f):\n    assert f(1) == f(2)\n",
}


@pytest.mark.parametrize("name", sorted(SOUND))
def test_the_check_passes(name: str) -> None:
    tree = ast.parse(SOUND[name])
    assert list(findings(tree, name, checking_functions([tree]))) == []
