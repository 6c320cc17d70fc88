"""Hand mutations the test suite must kill: ``python -m tests.mutations``.

Each mutation breaks one promise on purpose (an unbounded episode pool, a limit not
passed to the seats, a figure zeroed in a results line, ...) in a scratch copy of the
repository, then runs the tests that should notice. A mutation the tests do not kill
("survived") is a promise nothing checks; the script exits 1 if any survives.

    python -m tests.mutations                 # every mutation, its own tests
    python -m tests.mutations --full          # every mutation against the whole suite
    python -m tests.mutations --only rate     # mutations whose name contains "rate"
    python -m tests.mutations --list

The copy is made from the files git tracks (plus untracked, unignored ones), so the
working tree is never touched; a mutation whose text is not found exactly once is an
error, so the list cannot silently rot as the code moves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    """Replace ``old`` (which must occur exactly once in ``path``) with ``new``."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


CLAIMS = ("tests/tournament/test_claims.py",)

STORE = (
    "tests/tournament/test_integrity.py",
    "tests/tournament/test_run.py",
    "tests/replay/test_integrity.py",
)

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "tournament concurrency unbounded",
        "harness/tournament/playing.py",
        "            for _ in range(width):\n                group.create_task(players.on_loop(todo))",
        "            for _ in range(width * 1000):\n                group.create_task(players.on_loop(todo))",
        CLAIMS,
    ),
    Mutation(
        "tournament concurrency always 1",
        "harness/tournament/playing.py",
        "            for _ in range(width):\n                group.create_task(players.on_loop(todo))",
        "            for _ in range(1):\n                group.create_task(players.on_loop(todo))",
        CLAIMS,
    ),
    Mutation(
        "provider in-flight cap not passed to the seats",
        "harness/llm/seat.py",
        "                in_flight=p.max_in_flight,\n",
        "                in_flight=None,\n",
        CLAIMS,
    ),
    Mutation(
        "provider rate limit not passed to the seats",
        "harness/llm/seat.py",
        "                requests=p.requests_per_period,\n",
        "                requests=None,\n",
        CLAIMS,
    ),
    Mutation(
        "fallbackFree always true",
        "harness/summary/from_record.py",
        "fallback_free=fallbacks == 0",
        "fallback_free=True",
        CLAIMS,
    ),
    Mutation(
        "input tokens zeroed in a results line",
        "harness/summary/tally.py",
        "self.input_tokens += json_int(tokens_in or 0)",
        "self.input_tokens += 0",
        CLAIMS,
    ),
    Mutation(
        "retries not counted in a results line",
        "harness/summary/from_record.py",
        "tally.retries += 1",
        "tally.retries += 0",
        CLAIMS,
    ),
    Mutation(
        "stale partial records kept on resume",
        "harness/tournament/store.py",
        'for partial in self.records.glob(f"*{PARTIAL}"):\n            partial.unlink()',
        'for partial in self.records.glob(f"*{PARTIAL}"):\n            pass',
        STORE,
    ),
    Mutation(
        "a record with no end line accepted as finished",
        "harness/tournament/audit.py",
        'if lines[-1].type != "end":',
        "if False:",
        STORE,
    ),
    Mutation(
        "a duplicated results line kept on resume",
        "harness/tournament/audit.py",
        "if earlier != number:",
        "if False:",
        STORE,
    ),
    Mutation(
        "a results line's record hash not checked",
        "harness/tournament/audit.py",
        "if line.record_sha256 is not None and line.record_sha256 != derived.record_sha256:",
        "if False:",
        STORE,
    ),
    Mutation(
        "response bodies read without a cap",
        "harness/llm/bodies.py",
        "        cap = self._cap\n        stages",
        "        cap = 1 << 62\n        stages",
        ("tests/llm/test_bodies.py",),
    ),
    Mutation(
        "a negative token count believed",
        "harness/llm/types.py",
        "return value if 0 <= value <= MAX_TOKEN_COUNT else None",
        "return value",
        ("tests/llm/test_wire.py",),
    ),
    Mutation(
        "a retry hint of nan believed",
        "harness/llm/sdk_errors.py",
        "if math.isfinite(seconds) and 0.0 < seconds <= MAX_RETRY_HINT_S:",
        "if True:",
        ("tests/llm/test_retry_hints.py",),
    ),
    Mutation(
        "retry waits without the floor",
        "harness/llm/calls.py",
        "wait = max(wait, self._floor)",
        "wait = wait",
        ("tests/llm/test_retry_hints.py",),
    ),
    Mutation(
        "a model's reply kept unredacted",
        "harness/llm/calls.py",
        "text=redact(text)",
        "text=text",
        (
            "tests/llm/test_hostile_server.py::test_a_key_in_a_reply_is_redacted_before_the_record_and_the_cache",
        ),
    ),
    Mutation(
        "over-cap replies cached whole",
        "harness/llm/cache.py",
        "    if not record.clipped:\n        return text, None",
        "    if True:\n        return text, None",
        ("tests/llm/test_cache.py",),
    ),
)


def _copy_repo(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        source = ROOT / rel
        if not source.is_file():
            continue  # deleted in the working tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _apply(copy: Path, mutation: Mutation) -> None:
    path = copy / mutation.path
    text = path.read_text(encoding="utf-8")
    found = text.count(mutation.old)
    if found != 1:
        raise SystemExit(
            f"mutation {mutation.name!r}: {mutation.old!r} occurs {found} times in "
            f"{mutation.path}; update the list in tests/mutations.py"
        )
    path.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")


#: pytest's exit codes: tests failed; and those meaning no test ran (interrupted,
#: internal error, usage error such as a missing file, nothing collected).
_PYTEST_FAILED = 1
_PYTEST_NOT_RUN = frozenset({2, 3, 4, 5})


def stale_reason(mutation: Mutation, root: Path = ROOT) -> str | None:
    """Why ``mutation`` no longer fits the tree at ``root`` (None: it still does).

    Its text must occur exactly once in its file and every test file it names must
    exist, else running it would prove nothing.
    """
    path = root / mutation.path
    if not path.is_file():
        return f"{mutation.path} does not exist"
    found = path.read_text(encoding="utf-8").count(mutation.old)
    if found != 1:
        return f"its text occurs {found} times in {mutation.path}"
    # A test may name one test in its file ("file.py::name"); the file must exist.
    missing = [t for t in mutation.tests if not (root / t.split("::")[0]).is_file()]
    if missing:
        return f"no such test file: {', '.join(missing)}"
    return None


def run_one(mutation: Mutation, *, full: bool) -> tuple[bool, str]:
    """(killed, the last lines pytest printed) for one mutation, in a scratch copy."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        copy = Path(scratch)
        _copy_repo(copy)
        _apply(copy, mutation)
        # The copy comes first on the path, so it shadows the editable install; the
        # check below makes sure the mutant is what the tests import.
        env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
        where = subprocess.run(
            [sys.executable, "-c", "import harness; print(harness.__file__)"],
            cwd=copy,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if not where.startswith(str(copy)):
            raise SystemExit(f"the mutant is not what Python imports ({where})")
        targets = [] if full else list(mutation.tests)
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *targets],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
        )
        tail = "\n".join(result.stdout.strip().splitlines()[-3:])
        if result.returncode in _PYTEST_NOT_RUN:
            # A usage error or nothing collected kills nothing: the list has rotted.
            raise SystemExit(f"mutation {mutation.name!r}: pytest ran no tests ({tail})")
        return result.returncode == _PYTEST_FAILED, tail


def main(argv: list[str] | None = None) -> int:
    """Run the mutations; exit 1 if any survives."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run mutations whose name has this text")
    parser.add_argument("--full", action="store_true", help="run the whole suite per mutant")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if args.only in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.name}  ({m.path})")
        return 0
    stale = [(m.name, why) for m in chosen if (why := stale_reason(m)) is not None]
    if stale:
        lines = "\n".join(f"  {name}: {why}" for name, why in stale)
        raise SystemExit(f"update the list in tests/mutations.py:\n{lines}")
    survived = []
    for mutation in chosen:
        killed, tail = run_one(mutation, full=args.full)
        last = tail.splitlines()[-1] if tail else ""
        print(f"{'killed  ' if killed else 'SURVIVED'}  {mutation.name}  [{last}]", flush=True)
        if not killed:
            survived.append(mutation.name)
    print(f"{len(chosen) - len(survived)} of {len(chosen)} mutations killed")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
