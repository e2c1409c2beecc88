"""Issue 33: definitions the gate did not see. A `.h` holding C++ (Qt's macros, a namespace
behind a macro) read as C; Ruby's `define_method`; the definitions a macro call makes
(`HANDLER(on_close)`, `CONFIG_GETTER_SETTER(arrowStyle, setArrowStyle, int)`), read from the
macro's `#define` in the file or a workspace header it includes. clangd's reading of macros
the gate cannot see is in test_macro_definitions_clangd."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.gate.checker import Gate
from gateway.gate.effect import edit_effect
from gateway.gate.verdict import Classification
from gateway.langs import default_registry
from gateway.syntax import language_for

# A Qt-style value class: the text C and C++ read with as many errors (before
# QT_BEGIN_NAMESPACE was read), so the `.h` went to C, where its methods are not definitions.
TEXT_STYLE = """#ifndef TEXTSTYLE_H
#define TEXTSTYLE_H

#include <QtGlobal>

QT_BEGIN_NAMESPACE

struct TextStyle
{
public:
    int weight() const { return m_weight; }
    void setWeight(int weight) { m_weight = weight; }
    bool isBold() const { return m_weight >= 75; }

private:
    int m_weight = 50;
};

QT_END_NAMESPACE

#endif // TEXTSTYLE_H
"""

# The namespace-macro header (C and C++ read it with as many errors: it went to C).
SETTINGS = """#ifndef SETTINGS_H
#define SETTINGS_H

#include "config.h"

NAMESPACE_BEGIN(app)

struct Settings {
    int width;
    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)
    int area() const;
};

void save(const Settings *settings);
HANDLER(on_close)

NAMESPACE_END(app)

#endif
"""


def judge(path: str, text: str, old: str, new: str, gate: Gate | None = None) -> Classification:
    assert text.count(old) == 1, old
    return (gate or Gate()).check(edit_effect(path, text, old, new))


def changes(verdict: Classification) -> list[tuple[str, str]]:
    return [(d.change, d.new_name_path or d.name_path) for d in verdict.definitions]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("    bool isBold() const { return m_weight >= 75; }\n", "", [("removed", "TextStyle/isBold")]),
    ("    int weight() const {", "    int fontWeight() const {", [("renamed", "TextStyle/fontWeight")]),
    ("    int m_weight = 50;\n", "    int m_weight = 50;\n    int m_size = 12;\n    int size() const { return m_size; }\n",
     [("added", "TextStyle/size")]),
])
def test_a_qt_header_is_judged_as_cpp_whatever_its_extension(old: str, new: str, expected: list[tuple[str, str]]) -> None:
    """The issue's reproducer: the same text as `.hpp` was blocked, as `.h` allowed (read as C)."""
    assert language_for(default_registry(), "textstyle.h", TEXT_STYLE).name == "cpp"  # type: ignore[union-attr]
    verdicts = [judge(path, TEXT_STYLE, old, new) for path in ("textstyle.h", "textstyle.hpp")]
    for verdict in verdicts:
        assert (verdict.language, verdict.decision, changes(verdict)) == ("cpp", "block", expected), verdict.message
    body = [judge(path, TEXT_STYLE, "return m_weight >= 75;", "return m_weight > 70;") for path in ("textstyle.h", "textstyle.hpp")]
    assert [(v.language, v.decision) for v in body] == [("cpp", "allow")] * 2


def test_a_namespace_behind_a_macro_makes_a_header_cpp() -> None:
    for path in ("settings.h", "settings.hpp"):
        removed = judge(path, SETTINGS, "    int area() const;\n", "")
        assert (removed.language, changes(removed)) == ("cpp", [("removed", "Settings/area")]), removed.message
        renamed = judge(path, SETTINGS, "    int area() const;\n", "    int surface() const;\n")
        assert changes(renamed) == [("renamed", "Settings/surface")], renamed.message
        # The namespace macros themselves are read as nothing, not as a syntax error.
        assert not judge(path, SETTINGS, "    int width;\n", "    int width, height;\n").blocked


def test_a_c_header_with_cpp_only_for_cplusplus_stays_c() -> None:
    header = ("#ifndef Q_H\n#define Q_H\n#ifdef __cplusplus\nnamespace q { class Queue; }\nextern \"C\" {\n#endif\n\n"
              "struct queue { int n; };\nint queue_push(struct queue *q, int v);\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n")
    assert language_for(default_registry(), "queue.h", header).name == "c"  # type: ignore[union-attr]


SHAPE = """class Shape
  %w[circle square].each do |kind|
    define_method("#{kind}?") { @kind == kind }
  end

  define_method(:area) do |scale = 1|
    @w * @h * scale
  end

  define_method("perimeter") { 2 * (@w + @h) }

  def name
    "shape"
  end
end
"""


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("  define_method(:area) do |scale = 1|\n    @w * @h * scale\n  end\n\n", "", [("removed", "Shape/area")]),
    ('  define_method("perimeter") { 2 * (@w + @h) }\n', "", [("removed", "Shape/perimeter")]),
    ("define_method(:area)", "define_method(:surface)", [("renamed", "Shape/surface")]),
    ("  def name\n", "  define_method(:volume) { @w * @h * @d }\n\n  def name\n", [("added", "Shape/volume")]),
])
def test_ruby_define_method_is_a_definition(old: str, new: str, expected: list[tuple[str, str]]) -> None:
    verdict = judge("shape.rb", SHAPE, old, new)
    assert (verdict.decision, changes(verdict)) == ("block", expected), verdict.message


def test_ruby_define_method_bodies_stay_free() -> None:
    for old, new in (("    @w * @h * scale\n", "    @w * @h * scale * 2\n"), ("{ 2 * (@w + @h) }", "{ 2 * @w + 2 * @h }"),
                     ('define_method("#{kind}?")', 'define_method("#{kind}_shape?")')):
        verdict = judge("shape.rb", SHAPE, old, new)
        assert not verdict.blocked, verdict.message


EVENTS = """#include <assert.h>

#define HANDLER(name) int name(int x) { return x + 1; }

HANDLER(on_open)
HANDLER(on_close)

int dispatch(int event)
{
    assert(event > 0);
    return on_open(event) + on_close(event);
}
"""


@pytest.mark.parametrize("path", ["events.c", "events.cpp"])
def test_removing_a_macro_call_that_defines_a_function_is_structural(path: str) -> None:
    removed = judge(path, EVENTS, "HANDLER(on_close)\n", "")
    assert (removed.decision, removed.reason, changes(removed)) == ("block", "macro", [("removed", "on_close")]), removed.message
    assert "`HANDLER(on_close)`" in removed.message and f"its #define at {path}:3" in removed.message
    assert not removed.routable
    renamed = judge(path, EVENTS, "HANDLER(on_close)", "HANDLER(on_exit)")
    assert sorted(changes(renamed)) == [("added", "on_exit"), ("removed", "on_close")]
    added = judge(path, EVENTS, "HANDLER(on_close)\n", "HANDLER(on_close)\nHANDLER(on_error)\n")
    assert changes(added) == [("added", "on_error")]


@pytest.mark.parametrize("path", ["events.c", "events.cpp"])
def test_macro_calls_in_bodies_stay_statements(path: str) -> None:
    for old, new in (("    assert(event > 0);\n", ""), ("    assert(event > 0);\n", "    assert(event > 0);\n    Q_UNUSED(event)\n"),
                     ("    assert(event > 0);\n", "    assert(event > 0);\n    HANDLER(event)\n")):
        verdict = judge(path, EVENTS, old, new)
        assert (verdict.decision, verdict.reason) in {("allow", "single_line"), ("allow", "body_only")}, verdict.message


def test_a_macro_call_nobody_can_read_is_allowed_as_unverified() -> None:
    verdict = judge("events.c", EVENTS, "HANDLER(on_close)\n", "HANDLER(on_close)\nREGISTER_HANDLER(on_close)\n")
    assert (verdict.decision, verdict.reason) == ("allow", "unverified_macro")
    assert "unverified" in verdict.message and "`REGISTER_HANDLER(on_close)` (line 7)" in verdict.message


CONFIG = """#ifndef CONFIG_H
#define CONFIG_H

#define CONFIG_GETTER_SETTER(getter, setter, type) \\
    type getter() const { return m_##getter; } \\
    void setter(type value) { m_##getter = value; }

#endif // CONFIG_H
"""

ARROW = """#ifndef ARROW_H
#define ARROW_H

#include <QGraphicsLineItem>
#include <QObject>

#include "config.h"

class DiagramItem;

class Arrow : public QObject, public QGraphicsLineItem
{
    Q_OBJECT

public:
    Arrow(DiagramItem *startItem, DiagramItem *endItem, QGraphicsItem *parent = nullptr);

    QRectF boundingRect() const override;
    void setColor(const QColor &color) { myColor = color; }

    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)

    void updatePosition();

signals:
    void colorChanged();

private:
    QColor myColor = Qt::black;
    int m_lineWidth = 1;
    int m_arrowStyle = 0;
};

#endif // ARROW_H
"""


@pytest.fixture
def qt_workspace(tmp_path: Path) -> Path:
    (tmp_path / "config.h").write_text(CONFIG)
    (tmp_path / "arrow.h").write_text(ARROW)
    return tmp_path


def test_a_macro_call_in_a_qt_class_defines_the_methods_its_header_macro_makes(qt_workspace: Path) -> None:
    gate = Gate(root=qt_workspace)
    anchor = "    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)\n"
    added = judge(str(qt_workspace / "arrow.h"), ARROW, anchor, anchor + "    CONFIG_GETTER_SETTER(arrowStyle, setArrowStyle, int)\n", gate)
    assert (added.language, added.reason) == ("cpp", "macro")
    assert changes(added) == [("added", "Arrow/arrowStyle"), ("added", "Arrow/setArrowStyle")], added.message
    assert "its #define at config.h:4" in added.message
    removed = judge("arrow.h", ARROW, anchor, "", Gate(root=qt_workspace))  # a path relative to the workspace
    assert changes(removed) == [("removed", "Arrow/lineWidth"), ("removed", "Arrow/setLineWidth")], removed.message
    # Qt's own macros and ordinary members beside the call are judged as before.
    assert not judge("arrow.h", ARROW, "    Q_OBJECT\n", "    Q_OBJECT\n    Q_DISABLE_COPY(Arrow)\n", gate).reason == "macro"
    body = judge("arrow.h", ARROW, "{ myColor = color; }", "{ myColor = color; update(); }", gate)
    assert not body.blocked, body.message


def test_a_header_outside_the_workspace_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "config.h").write_text(CONFIG)
    (tmp_path / "ws").mkdir()
    text = ARROW.replace('#include "config.h"', '#include "../config.h"')
    verdict = judge("arrow.h", text, "    CONFIG_GETTER_SETTER(lineWidth, setLineWidth, int)\n", "", Gate(root=tmp_path / "ws"))
    assert (verdict.decision, verdict.reason) == ("allow", "unverified_macro"), verdict.message


def test_changing_a_macro_changes_what_each_of_its_calls_makes() -> None:
    renamed = judge("events.c", EVENTS, "int name(int x)", "int name##_cb(int x)")
    assert sorted(changes(renamed)) == [("added", "on_close_cb"), ("added", "on_open_cb"), ("removed", "on_close"), ("removed", "on_open")]
    body = judge("events.c", EVENTS, "{ return x + 1; }", "{ return x + 2; }")
    assert not body.blocked, body.message


@pytest.mark.usefixtures("processes")
def test_the_hook_refuses_removing_a_call_whose_macro_a_workspace_header_defines(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    (tmp_path / "handlers.h").write_text("#pragma once\n#define HANDLER(name) int name(int x) { return x + 1; }\n")
    (tmp_path / "events.c").write_text(EVENTS.replace("#include <assert.h>\n\n#define HANDLER(name) int name(int x) { return x + 1; }\n",
                                                      '#include <assert.h>\n#include "handlers.h"\n'))
    payload = {"tool_name": "Edit", "cwd": str(tmp_path), "tool_input": {
        "file_path": str(tmp_path / "events.c"), "old_string": "HANDLER(on_close)\n", "new_string": "", "replace_all": False}}
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], input=json.dumps(payload), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny", output
    assert "`HANDLER(on_close)`" in output["permissionDecisionReason"] and "handlers.h:2" in output["permissionDecisionReason"]
    assert "HANDLER(on_close)" in (tmp_path / "events.c").read_text()
