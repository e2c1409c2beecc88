"""jedi-language-server (and the other Python servers found for the same spec): as the generic
adapter but for two things.

- CPython 3.11's `ast` now and then fails a request when two of the server's threads build
  syntax trees at once ("AST constructor recursion depth mismatch"); asked again, it answers.
- parso writes its parse cache (~/.cache/parso, shared by every jedi of the user) by truncating
  the file and then pickling into it, and reads it catching only a missing file: a request that
  reads a module's cache file while another jedi process writes it fails with "EOFError: Ran
  out of input" (seen once in a fresh-clone CI run, three test workers renaming in a new venv's
  packages at once); asked again, it answers.
- jedi keeps every module it has read, parsed and inferred, with no bound of its own: on a
  1,867-file repository its process tree grew from about 120 to over 250 MiB in 200
  operations. Restarted when grown (`[daemon] server_growth_mib`), it answers again within
  about 2 s.

Its diagnostics (a `compile` of the whole file on every didOpen, didChange and didSave) are
syntax errors only, so they cannot tell whether an edit broke the program
(`no_semantic_errors`); they are switched off, for each took the server's one thread for
10-20 ms on argparse.py before it could answer. Nothing is kept on disk by it either, so a
CLI command that is about to exit kills it instead of waiting about 0.5 s for its polite
shutdown.
"""

from __future__ import annotations

from typing import Any

from gateway.lsp.adapters.base import Adapter


class JediAdapter(Adapter):
    transient_errors = ("AST constructor recursion depth mismatch", "EOFError: Ran out of input")
    restart_when_grown = True
    killed_at_exit = True
    # The other Python servers run on this adapter too: those that offer pull diagnostics
    # (pyright) are asked so, and this is not read for them.
    no_semantic_errors = "{server} reports only syntax errors"

    def initialization_options(self, program: str) -> dict[str, Any]:
        return {"diagnostics": {"enable": False}}


ADAPTER = JediAdapter()
