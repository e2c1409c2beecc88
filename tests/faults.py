"""Simulated write failures: the disk fills up on the n-th file a change writes."""

from __future__ import annotations

import pytest

from gateway.errors import WriteFailed
from gateway.workspace import SourceFile, Workspace


def fail_nth_write(monkeypatch: pytest.MonkeyPatch, n: int) -> list[SourceFile]:
    """Make the n-th file write raise WriteFailed; returns the list of files written so far (and tried)."""
    real, calls = Workspace._write_bytes, []

    def failing(self: Workspace, source: SourceFile, data: bytes) -> bytes:
        calls.append(source)
        if len(calls) == n:
            raise WriteFailed(f"{source.display}: cannot write (No space left on device); the file is unchanged")
        return real(self, source, data)

    monkeypatch.setattr(Workspace, "_write_bytes", failing)
    return calls
