"""Record lines written: a model or its JSON object dumped to one line, and the file
they are appended to with its sha256."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel


def dump_line(model: BaseModel) -> str:
    """One record line: compact JSON in camelCase, keys in model order, no NaN."""
    return dump_doc(model.model_dump(mode="json", by_alias=True))


#: What :func:`json.dumps` with these arguments would build anew for every line. No
#: circular check: a line is a tree of JSON values the harness made (a cycle cannot be
#: built from JSON), and the check costs a dict entry per object of every line.
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)


def dump_doc(doc: Any) -> str:
    """One record line from its JSON object, already in the form :func:`dump_line` gives
    its model (camelCase keys in model order): the same bytes, without the model."""
    return _LINE_ENCODER.encode(doc)


class RecordWriter:
    """Appends record lines to a file, keeping the sha256 of the bytes written.

    With ``flush_lines`` (the default) each line is flushed as it is written, so a
    reader following the file (a live viewer) sees whole lines; without it the lines
    reach the file as the buffer fills, and whole at :meth:`close`, for a record no one
    reads before it is finished (a tournament's partial record).
    """

    def __init__(self, path: Path, *, flush_lines: bool = True) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = path.open("wb")
        self._flush_lines = flush_lines
        # hashed as written: a tournament's results line names its record's sha256
        # without reading the record back
        self._sha256 = hashlib.sha256()

    def write(self, model: BaseModel) -> None:
        """Write one line (flushed with ``flush_lines``)."""
        self.write_doc(model.model_dump(mode="json", by_alias=True))

    def write_doc(self, doc: Any) -> None:
        """Write one line given as its JSON object in dump form (see :func:`dump_doc`)."""
        data = (dump_doc(doc) + "\n").encode("utf-8")
        self._sha256.update(data)
        self._file.write(data)
        if self._flush_lines:
            self._file.flush()

    @property
    def sha256(self) -> str:
        """The sha256 (hex) of every byte written so far: the record's, once closed."""
        return self._sha256.hexdigest()

    def close(self, *, sync: bool = True) -> None:
        """Close the file, fsyncing it first unless ``sync`` is False."""
        if self._file.closed:
            return
        try:
            self._file.flush()
            if sync:
                os.fsync(self._file.fileno())
        finally:
            # closed even when the flush failed (a full disk): the error is raised
            # here, not again by the garbage collector
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
