"""bash-language-server: it analyses a file it has just been given in the background, and
answers documentSymbol with [] until it has; the question is asked again (a file whose syntax
tree has no definition is taken at its word). Its only diagnostics are shellcheck's, which
does not check that the commands a script runs exist: a function removed from a sourced file
is no error to it."""

from __future__ import annotations

from gateway.lsp.adapters.base import Adapter


class BashAdapter(Adapter):
    empty_symbols_while_analysing = 5.0
    no_semantic_errors = "{server} does not check that commands exist"


ADAPTER = BashAdapter()
