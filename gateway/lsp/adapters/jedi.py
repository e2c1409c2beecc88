"""jedi-language-server: as the generic adapter, but CPython 3.11's `ast` now and then fails a
request when two of the server's threads build syntax trees at once ("AST constructor recursion
depth mismatch"); asked again, it answers."""

from __future__ import annotations

from gateway.lsp.adapters.base import Adapter


class JediAdapter(Adapter):
    transient_errors = ("AST constructor recursion depth mismatch",)


ADAPTER = JediAdapter()
