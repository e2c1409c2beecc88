"""Issue 33: a macro call whose `#define` the gate cannot read (a header on the include path
compile_flags.txt gives clangd, not beside the file) is judged by what clangd lists it making;
without a server the write is allowed as unverified, never silently. Real clangd."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.engine import Engine
from gateway.gate.verdict import Classification

HANDLERS = "#pragma once\n#define HANDLER(name) int name(int x) { return x + 1; }\n"
CONFIG = """#pragma once
#define CONFIG_GETTER_SETTER(getter, setter, type) \\
    type getter() const { return m_##getter; } \\
    void setter(type value) { m_##getter = value; }
"""
EVENTS = """#include "handlers.h"

HANDLER(on_open)
HANDLER(on_close)

int dispatch(int event)
{
    return on_open(event) + on_close(event);
}
"""
ARROW = """#pragma once
#include "config.h"

namespace diagram {

class Arrow
{
public:
    explicit Arrow(int width) : m_lineWidth(width) {}

    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)

    void updatePosition();

private:
    int m_lineWidth = 1;
    int m_arrowStyle = 0;
};

}  // namespace diagram
"""


pytestmark = pytest.mark.workspace(copy=None, files={
    "include/handlers.h": HANDLERS, "include/config.h": CONFIG, "compile_flags.txt": "-Iinclude\n", "src/events.c": EVENTS, "src/arrow.hpp": ARROW})


@pytest.fixture
def engine(workspace: Path) -> Iterator[Engine]:
    engine = Engine(workspace)
    yield engine
    engine.close()


def changes(verdict: Classification) -> list[tuple[str, str]]:
    return [(d.change, d.name_path) for d in verdict.definitions]


@pytest.mark.usefixtures("servers")
def test_clangd_says_what_a_removed_or_added_macro_call_made(engine: Engine) -> None:
    removed = engine.classify("src/events.c", "HANDLER(on_close)\n", "")
    assert (removed.decision, removed.reason, changes(removed)) == ("block", "macro", [("removed", "on_close")]), removed.message
    assert "as clangd expands it" in removed.message
    added = engine.classify("src/events.c", "HANDLER(on_close)\n", "HANDLER(on_close)\nHANDLER(on_error)\n")
    assert changes(added) == [("added", "on_error")], added.message
    body = engine.classify("src/events.c", "    return on_open(event) + on_close(event);\n", "    return on_open(event);\n")
    assert not body.blocked, body.message


@pytest.mark.usefixtures("servers")
def test_clangd_says_what_a_macro_call_in_a_class_makes(engine: Engine) -> None:
    anchor = "    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)\n"
    added = engine.classify("src/arrow.hpp", anchor, anchor + "    CONFIG_GETTER_SETTER(arrowStyle, setArrowStyle, int)\n")
    assert changes(added) == [("added", "diagram/Arrow/arrowStyle"), ("added", "diagram/Arrow/setArrowStyle")], added.message


def test_without_a_server_the_gate_says_it_could_not_tell(workspace: Path) -> None:
    engine = Engine(workspace, use_servers=False)
    try:
        verdict = engine.classify("src/events.c", "HANDLER(on_close)\n", "")
    finally:
        engine.close()
    assert (verdict.decision, verdict.reason) == ("allow", "unverified_macro"), verdict.message
    assert "unverified" in verdict.message and "`HANDLER(on_close)` (line 4)" in verdict.message
