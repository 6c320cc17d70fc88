"""Write the episodes' records out of an Inspect log, for ``lighthouse replay`` and the viewer.

    python -m lighthouse_harness.export logs/2025-...-lighthouse-keeper.eval records/
    lighthouse replay records/

Each sample that finished its episode gives ``OUT_DIR/<sample id>-e<epoch>.jsonl``,
the record exactly as ``lighthouse play --record`` would have written it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.log import read_eval_log_samples

from harness.errors import HarnessError
from lighthouse_harness.record import RECORD_KEY, parse_record

#: What a file name keeps of a sample id: letters, digits, ``.``, ``_`` and ``-``.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def export_records(log: Path, out: Path) -> list[Path]:
    """Write every record ``log`` holds into the folder ``out``; the files written.

    Each record is checked against its game's record models first, so a file
    written is a record the harness reads. A sample without one (its episode failed)
    is skipped.
    """
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    samples = read_eval_log_samples(
        log, all_samples_required=False, exclude_fields={"events", "messages", "attachments"}
    )
    for sample in samples:
        text = sample.store.get(RECORD_KEY)
        if not isinstance(text, str):
            continue
        name = _UNSAFE.sub("_", str(sample.id))[:100] or "sample"
        parse_record(text, f"{log}: sample {sample.id}")
        path = out / f"{name}-e{sample.epoch}.jsonl"
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lighthouse_harness.export LOG OUT_DIR``."""
    parser = argparse.ArgumentParser(
        prog="python -m lighthouse_harness.export",
        description="Write the episode records an Inspect log holds, one file per sample.",
    )
    parser.add_argument("log", type=Path, help="an Inspect log (.eval or .json)")
    parser.add_argument("out", type=Path, help="the folder the records go to")
    args = parser.parse_args(argv)
    if not args.log.is_file():
        print(f"export: error: no such log {args.log}", file=sys.stderr)
        return 2
    try:
        written = export_records(args.log, args.out)
    except (HarnessError, OSError, ValueError) as exc:
        # ValueError: a file Inspect cannot read as a log
        print(f"export: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    print(f"{len(written)} records written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
