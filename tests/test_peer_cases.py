"""The text the Serena head-to-head (benchmarks/serena_peer.py) writes into a definition."""

from __future__ import annotations

import pytest

from benchmarks.peer_cases import marked


def test_the_marker_goes_after_the_header_at_the_body_indentation() -> None:
    method = "    def f(self):\n\n        return 1"
    assert marked(method, "run 3", "#") == "    def f(self):\n        # run 3\n\n        return 1"
    go = "func f() int {\n\treturn 1\n}"
    assert marked(go, "run 3", "//") == "func f() int {\n\t// run 3\n\treturn 1\n}"


def test_a_definition_of_one_line_is_refused() -> None:
    with pytest.raises(ValueError, match="one line"):
        marked("def f(): return 1", "run 3", "#")
