"""Issue 35, "also false, found replaying real commits": valid code the grammar cannot read was
refused as "would add a syntax error". Kotlin's line break before a primary constructor
(kotlinpoet's `class X\\nprivate constructor(...) : A, B {`) is read as Kotlin reads it. Where
tree-sitter is unsure (a project macro in a C parameter list, `__unused struct client *oc` as in
tmux; lines tree-sitter-kotlin already misread before the write), the write is let through as
`uncertain_syntax`, naming the line and why. Real new errors are still refused. The fixtures
are written here in the shape of those projects' code."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.gate.checker import Gate
from gateway.gate.effect import edit_effect

# tmux's shape: `__unused` is defined in a header the gateway does not expand (compat.h).
CLIENT_C = """#include "tmux.h"

static int	cmd_done(struct client *, const char *, int);

static void
cmd_source_done(struct client *c, const char *path, int error)
{
\tif (error != 0)
\t\tc->retval = 1;
\tfree(path);
}

static struct screen *
window_clock_init(struct window_mode_entry *wme,
    __unused struct cmd_find_state *fs, __unused struct args *args)
{
\treturn (&wme->screen);
}

struct control_state {
\tTAILQ_HEAD(, control_pane)\t pending_list;
\tint\t\t\t flags;
};

static int
count_next(struct options *oo, struct options_entry *a)
{
\treturn (RB_NEXT(options_tree, &oo->tree, a) != NULL);
}
"""

# kotlinpoet's shape: tree-sitter-kotlin reads no newline between a class's name and
# `private constructor`, so the header and its supertype list are errors before any write.
SPEC_KT = """package demo.poet

/** A generated file. */
public class FileModel
private constructor(builder: Builder, private val tagMap: TagMap = builder.buildTagMap()) :
  Taggable by tagMap, Annotatable, TypeHolder {
  public val name: String = builder.name

  public fun write(out: Appendable) {
    out.append(name)
  }

  public class Builder
  internal constructor(internal val name: String) :
    Taggable.Builder<Builder>,
    Annotatable.Builder<Builder> {
    public fun build(): FileModel = FileModel(this)
  }
}
"""

# A class tree-sitter-kotlin reads without an error.
PLAIN_KT = """package demo.poet

class Registry(private val names: MutableList<String>) : Iterable<String>, AutoCloseable {
    override fun iterator(): Iterator<String> = names.iterator()

    override fun close() {
        names.clear()
    }
}
"""


def _check(path: str, text: str, old: str, new: str):  # noqa: ANN202 - the gate's Classification
    return Gate().check(edit_effect(path, text, old, new))


UNSURE_C = [
    ("a project macro before a struct parameter", "cmd_source_done(struct client *c,", "cmd_source_done(__unused struct client *c,", 6,
     "`__unused`"),
    ("before a basic type", "*path, int error)", "*path, __unused int error)", 6, "`__unused`"),
    ("before a qualified type", "cmd_source_done(struct client *c, const char *path,",
     "cmd_source_done(struct client *c, __unused const char *path,", 6, "`__unused`"),
    ("a parameter added to a list that has them", "    __unused struct cmd_find_state *fs,",
     "    __unused struct cmdq_item *item, __unused struct cmd_find_state *fs,", 15, "`__unused`"),
    ("an empty macro argument", "\tint\t\t\t flags;\n", "\tint\t\t\t flags;\n\tTAILQ_HEAD(, control_line)\t deferred;\n", 23,
     "`TAILQ_HEAD`"),
    ("an empty argument of a macro call", "RB_NEXT(options_tree, &oo->tree, a)", "RB_NEXT(options_tree, , a)", 28, "`RB_NEXT`"),
]


@pytest.mark.parametrize(("case", "old", "new", "line", "macro"), UNSURE_C, ids=[c[0] for c in UNSURE_C])
def test_a_project_macro_in_c_is_let_through_as_uncertain(case: str, old: str, new: str, line: int, macro: str) -> None:
    verdict = _check("client.c", CLIENT_C, old, new)
    assert (verdict.decision, verdict.reason) == ("allow", "uncertain_syntax"), verdict.message
    assert verdict.message.startswith("Allowed: uncertain: ")
    assert f"may add a syntax error at line {line}:" in verdict.message
    assert f"{macro} is a macro the c grammar cannot expand" in verdict.message
    assert f"check line {line}" in verdict.message


def test_a_multi_line_header_change_with_the_macro_is_a_header_change_not_a_syntax_error() -> None:
    verdict = _check("client.c", CLIENT_C, "cmd_source_done(struct client *c, const char *path, int error)",
                     "cmd_source_done(__unused struct client *c,\n    const char *path, int error)")
    assert (verdict.decision, verdict.reason, verdict.suggested_tool) == ("block", "definition", "replace_symbol"), verdict.message
    assert "does not parse" not in verdict.message


def test_the_routed_header_change_is_performed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    (tmp_path / ".gateway").mkdir()
    (tmp_path / "client.c").write_text(CLIENT_C)
    new = "cmd_source_done(__unused struct client *c,\n    const char *path, int error)"
    with Gateway(str(tmp_path)) as gateway:
        result = gateway.edit("client.c", "cmd_source_done(struct client *c, const char *path, int error)", new, route=True)
    assert result.to_json()["applied"] is True
    assert (tmp_path / "client.c").read_text() == CLIENT_C.replace("cmd_source_done(struct client *c, const char *path, int error)", new)


BROKEN_C = [
    ("a parameter without a comma", "cmd_source_done(struct client *c,", "cmd_source_done(struct client *c int,"),
    ("the macro with a broken parameter", "cmd_source_done(struct client *c,", "cmd_source_done(__unused struct client *c int,"),
    ("a declaration without a comma", "cmd_done(struct client *, const char *, int);", "cmd_done(struct client * const char *, int);"),
    ("an unclosed parameter list", "count_next(struct options *oo, struct options_entry *a)",
     "count_next(struct options *oo, struct options_entry *a"),
    ("an empty argument of a function", "free(path);", "free(path, , 1);"),
]


@pytest.mark.parametrize(("case", "old", "new"), BROKEN_C, ids=[c[0] for c in BROKEN_C])
def test_a_broken_c_parameter_list_is_still_refused(case: str, old: str, new: str) -> None:
    verdict = _check("client.c", CLIENT_C, old, new)
    assert (verdict.decision, verdict.reason) == ("block", "syntax_error"), verdict.message
    assert "would add a syntax error" in verdict.message


KOTLINPOET_KT = [
    ("a supertype on the line", "Annotatable, TypeHolder {", "Annotatable, TypeHolder, BodyHolder {"),
    ("a supertype on a line of its own", "Annotatable, TypeHolder {", "Annotatable, TypeHolder,\n  BodyHolder {"),
    ("a nested class's supertype", "    Annotatable.Builder<Builder> {", "    Annotatable.Builder<Builder>,\n    BodyHolder.Builder<Builder> {"),
    ("a constructor parameter", "private val tagMap: TagMap = builder.buildTagMap())",
     "private val tagMap: TagMap = builder.buildTagMap(), private val origin: String = \"\")"),
]


@pytest.mark.parametrize(("case", "old", "new"), KOTLINPOET_KT, ids=[c[0] for c in KOTLINPOET_KT])
def test_kotlin_a_constructor_on_its_own_line_is_read_as_kotlin_reads_it(case: str, old: str, new: str) -> None:
    """tree-sitter-kotlin reads no line break before `private constructor`; Kotlin does, and so
    does the syntax check (`syntax_joins` in langs/kotlin.toml)."""
    verdict = _check("FileModel.kt", SPEC_KT, old, new)
    assert verdict.decision == "allow" and verdict.reason not in ("syntax_error", "uncertain_syntax"), verdict.message


# A range with `..<` (Kotlin 1.8), which tree-sitter-kotlin does not read, in a parameter list.
RANGES_KT = """package demo.poet

class Segments(private val parts: List<String>) {
    fun window(range: IntRange = 0..<parts.size, step: Int = 1): List<String> =
        parts.slice(range).filterIndexed { i, _ -> i % step == 0 }

    fun count(): Int = parts.size
}
"""


def test_kotlin_lines_the_grammar_already_misread_are_let_through_as_uncertain() -> None:
    verdict = _check("Segments.kt", RANGES_KT, "step: Int = 1)", "step: Int = 1, skip: IntRange = 0..<0)")
    assert (verdict.decision, verdict.reason) == ("allow", "uncertain_syntax"), verdict.message
    assert "may add a syntax error at line 4:" in verdict.message
    assert "tree-sitter's kotlin grammar already failed to read line 4 here before the write" in verdict.message
    assert "check line 4" in verdict.message


BROKEN_KT = [
    ("PLAIN", "a supertype list with an empty entry", "Iterable<String>, AutoCloseable {", "Iterable<String>,, AutoCloseable {"),
    ("PLAIN", "a supertype list without its comma", "Iterable<String>, AutoCloseable {", "Iterable<String> AutoCloseable {"),
    ("PLAIN", "a parameter without its colon", "(private val names: MutableList<String>)", "(private val names MutableList<String>)"),
    ("SPEC", "a typo far from what the grammar misread", "    out.append(name)\n", "    out.append(name))\n"),
    ("SPEC", "a supertype list with an empty entry after the constructor", "Annotatable, TypeHolder {", "Annotatable,, TypeHolder {"),
    ("SPEC", "a constructor parameter without its colon", "private val tagMap: TagMap = builder.buildTagMap())",
     "private val tagMap: TagMap = builder.buildTagMap(), origin String)"),
    ("RANGES", "a typo away from the misread line", "fun count(): Int = parts.size", "fun count(): Int = parts.size)"),
]


@pytest.mark.parametrize(("which", "case", "old", "new"), BROKEN_KT, ids=[c[1] for c in BROKEN_KT])
def test_a_broken_kotlin_supertype_list_is_still_refused(which: str, case: str, old: str, new: str) -> None:
    text = {"PLAIN": PLAIN_KT, "SPEC": SPEC_KT, "RANGES": RANGES_KT}[which]
    verdict = _check("Registry.kt", text, old, new)
    assert (verdict.decision, verdict.reason) == ("block", "syntax_error"), verdict.message


def test_refused_when_syntax_errors_are_allowed_by_config_nothing_says_uncertain() -> None:
    from gateway.config import GateConfig

    gate = Gate(config=GateConfig(on_new_syntax_error="allow"))
    verdict = gate.check(edit_effect("client.c", CLIENT_C, "cmd_source_done(struct client *c,", "cmd_source_done(__unused struct client *c,"))
    assert (verdict.decision, verdict.reason) == ("allow", "single_line")


def test_cpp_reads_the_project_macro_the_same_way() -> None:
    text = CLIENT_C.replace("struct control_state {\n\tTAILQ_HEAD(, control_pane)\t pending_list;\n", "struct control_state {\n")
    verdict = _check("client.cpp", text, "cmd_source_done(struct client *c,", "cmd_source_done(__unused struct client *c,")
    assert (verdict.decision, verdict.reason) == ("allow", "uncertain_syntax"), verdict.message
    assert "`__unused` is a macro the cpp grammar cannot expand" in verdict.message
    verdict = _check("client.cpp", text, "cmd_source_done(struct client *c,", "cmd_source_done(__unused struct client *c int,")
    assert (verdict.decision, verdict.reason) == ("block", "syntax_error"), verdict.message
