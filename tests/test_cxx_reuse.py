"""Issue 36: C and C++ judged from what one write's texts share. Each shortcut gives what the long
way gives: a text's rewrites for the grammar redone only on the lines an edit changed, a
preprocessor view's tree parsed from the text's tree, an error away from an edit read as before
it, many errors read by one query, an address worked out among the definitions of one name."""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

import pytest

import gateway.gate.tree_errors as tree_errors_module
from gateway.gate.checker import classify_edit
from gateway.gate.tree_errors import _error_nodes, _kept, tree_errors
from gateway.gate.view_trees import carry_macros, carry_views, view_tree
from gateway.langs import default_registry
from gateway.namepath import address_for
from gateway.preprocessor import _CONDITIONAL, _DIRECTIVE, _FRAGMENT_DEFINE, _PREFIX_DEFINE, both_views, fragment_macros, prefix_macros, views
from gateway.preprocessor_scan import first_words, hash_lines, whole_words
from gateway.syntax import base_of, definitions, definitions_named, edited_tree, parse, parse_once
from gateway.syntax.listing import _spelled
from gateway.syntax.grammars import _preprocessed, _rewritten, input_after, parse_input, parser_for
from gateway.syntax.trees import _TREES, _joined
from gateway.textmemo import per_text

REAL = Path(__file__).parent / "real_code"
CPP = default_registry().get("cpp")
C = default_registry().get("c")
# Real C++ with Qt's macros (rewritten for the grammar), #if blocks, macro lines and errors the
# grammar makes of macros, long enough for edits far from one another.
QT = (REAL / "qt_qtimer.h").read_bytes()
# What the grammar reads as errors: macros it cannot expand (read as not errors, or as unsure ones)
# and a real one.
MISREAD = b"""
MEM_STATIC FORCE_INLINE size_t ZSTD_cwksp_align(size_t size) { return size; }
static size_t const align = ZSTD_ALIGNOF(void*);
static const size_t limit = 1 GB;
static void client_free(__unused struct client *oc, int fd) { close(fd); }
static int broken(int a) { return a + ; }
"""
CATCH = b"\n".join((REAL / name).read_bytes() for name in ("catch2_misc.tests.cpp", "catch2_test_registry.hpp", "catch2_run_context.cpp",
                                                            "catch2_macro_impl.hpp", "qt_qtimer.h")) + MISREAD
LIBUV = b"\n".join((REAL / name).read_bytes() for name in ("libuv_kqueue.c", "libuv_test_impl.c", "lz4_freestanding.c", "zstd_cwksp.h")) + MISREAD
INSERTED = [b"", b"}", b"{", b"(", b" x;", b"class Q_CORE_EXPORT QThing : public QObject {\n", b"signals:\n", b"public slots:\n",
            b"    Q_OBJECT\n", b"QT_BEGIN_NAMESPACE\n", b"x \\  \n", b"#if defined(A)\n", b"#endif\n", b"MACRO(x)\n", b"TEST_CASE(\"t\") {\n",
            b"MEM_STATIC int f(void) {", b"__unused struct client *oc", b"1 GB;"]


def _edits(source: bytes, count: int, seed: int) -> list[tuple[int, int, bytes]]:
    """Replacements as an agent's edits make them: at line starts and inside lines alike."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        start = rng.randrange(len(source) + 1)
        if rng.random() < 0.5:
            start = source.rfind(b"\n", 0, start) + 1
        found.append((start, min(len(source), start + rng.randrange(60)), rng.choice(INSERTED)))
    return found


def test_a_rewrite_matches_only_where_a_word_it_needs_is_spelled() -> None:
    assert CPP.preprocessor is not None
    needing = [(pattern, needs) for pattern, _, needs in CPP.preprocessor.rewrites if needs]
    assert needing
    matched = 0
    for pattern, needs in needing:
        for match in pattern.finditer(QT + CATCH):
            matched += 1
            assert any(word in match.group(0) for word in needs), (pattern.pattern, match.group(0))
    assert matched >= len(needing)
    without = b"\n".join(line for line in QT.split(b"\n") if not any(word in line for _, needs in needing for word in needs))
    assert _preprocessed.function(CPP.preprocessor, without) == functools.reduce(
        lambda text, rewrite: rewrite[0].sub(lambda m: _rewritten(m, rewrite[1]), text), CPP.preprocessor.rewrites, without)


@pytest.mark.parametrize("source", [QT, CATCH], ids=["qt", "catch2"])
def test_rewrites_redone_on_the_changed_lines_are_those_of_the_whole_text(source: bytes) -> None:
    assert CPP.preprocessor is not None and CPP.preprocessor.rewrites
    for start, end, new in _edits(source, 60, 1):
        after = source[:start] + new + source[end:]
        assert input_after(CPP, source, after, [(start, end, start, start + len(new))]) == _preprocessed.function(CPP.preprocessor, after)
    for view in views(CPP.preprocessor, source):
        spans = [(start, end, start, end) for start, end in _joined(view.blanked)]
        assert input_after(CPP, source, view.text, spans) == _preprocessed.function(CPP.preprocessor, view.text)


SCANNED = (b"#define A\n#define AB\nA x\nAB y\n  A\tz\n #  define   EMPTY_ARG\nf(EMPTY_ARG a)\n#if X \\\n#endif\n#endif\nA_B A\n"
           b"\r#define Q\nx # y\n\t# elif Z\n#define PAR_UNSEQ std::execution::par_unseq,\n")


@pytest.mark.parametrize("source", [QT, CATCH, LIBUV, SCANNED, b"#", b""], ids=["qt", "catch2", "libuv", "made", "hash", "empty"])
def test_directives_and_macro_uses_found_from_where_they_can_match_are_what_the_patterns_find(source: bytes) -> None:
    for pattern in (_DIRECTIVE, _CONDITIONAL, _PREFIX_DEFINE, _FRAGMENT_DEFINE):
        assert [(m.span(), m.groups()) for m in hash_lines(pattern, source)] == [(m.span(), m.groups()) for m in pattern.finditer(source)]
    names = sorted({m.group(1) for m in _FRAGMENT_DEFINE.finditer(source)})
    if names:
        words = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in names) + rb")\b")
        assert whole_words(source, names) == [m.span() for m in words.finditer(source)]
        starts = re.compile(rb"^[ \t]*(" + b"|".join(re.escape(n) for n in names) + rb")(?=[ \t]+[A-Za-z_])", re.MULTILINE)
        assert first_words(source, names) == [m.span(1) for m in starts.finditer(source)]


# What may change how the preprocessor reads lines far from an edit: a directive, a line continued,
# a macro line (and a `{` after one), prefix and fragment macros defined and used.
CARRIED = [b"#define EMPTY_ARG\n#define EXPORTED static\n", b"EMPTY_ARG ", b"EXPORTED int g(void);\n", b"#else\n", b"\\\n", b"\n\n{\n",
           b"DECLARE_THING(x)\n", b"// #if\n", b"\n\n\n"]


@pytest.mark.parametrize(("lang", "source"), [(CPP, QT), (CPP, CATCH), (C, LIBUV)], ids=["qt", "catch2", "libuv"])
def test_views_after_an_edit_carried_from_those_before_it_are_those_of_the_whole_text(lang, source: bytes) -> None:
    spec = lang.preprocessor
    assert spec is not None
    source = b"#define EMPTY_ARG\n#define EXPORTED static\nEXPORTED int f(void);\nDECLARE_THING(x)\n\n\nint a;\n" + source
    at = source.index(b"int a;")
    edits = [(at, at + 6, b"{"), (at, at, b"EMPTY_ARG")]  # the macro line above now opens a block; a macro used
    edits += [(start, end, random.Random(start).choice(INSERTED + CARRIED)) for start, end, _ in _edits(source, 120, 3)]
    carried = 0
    for start, end, new in edits:
        after = source[:start] + new + source[end:]
        regions = [((start, end), (start, start + len(new)))]
        carry_macros(spec, source, after, regions)
        carry_views(spec, source, after, regions)
        if views.known(spec, after) is not None:
            carried += 1
            assert views.known(spec, after) == views.function(spec, after)
            assert both_views.known(spec, after) == both_views.function(spec, after)
        for uses in (prefix_macros, fragment_macros):
            assert uses.known(after) in (None, uses.function(after))
    assert 30 < carried < len(edits)  # most are carried, those near what the preprocessor reads are not


@pytest.mark.parametrize(("lang", "source"), [(CPP, QT), (CPP, CATCH), (C, LIBUV)], ids=["qt", "catch2", "libuv"])
def test_a_view_parsed_from_the_text_is_the_tree_a_parse_from_scratch_makes(lang, source: bytes) -> None:
    assert lang.preprocessor is not None
    found = views(lang.preprocessor, source)
    assert found
    parse(lang, source)
    parsed = []
    for view in found:
        tree = view_tree(lang, source, view, parsed)
        parsed.append(view)
        assert str(tree.root_node) == str(parser_for(lang.grammar).parse(parse_input(lang, view.text)).root_node)
        assert base_of(lang, tree) is not None or view.text == source  # what it was parsed from is known


@pytest.mark.parametrize(("lang", "source"), [(CPP, CATCH), (C, LIBUV)], ids=["catch2", "libuv"])
def test_an_error_away_from_an_edit_is_read_as_it_was_before_it(lang, source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    before = parse(lang, source)
    assert len(_error_nodes(before.root_node, [])) > len(tree_errors(lang, before)) >= 1  # some read as not errors
    carried = tree_errors_module._carried
    for start, end, new in _edits(source, 40, 2):
        after = source[:start] + new + source[end:]
        tree, _ = edited_tree(lang, before, source, after, start, end, start + len(new))
        got = tree_errors(lang, tree)
        monkeypatch.setattr(tree_errors_module, "_carried", lambda *_: None)
        assert got == _kept(lang, tree, _error_nodes(tree.root_node, [])), (start, end, new)
        monkeypatch.setattr(tree_errors_module, "_carried", carried)
    for view in views(lang.preprocessor, source) if lang.preprocessor is not None else ():
        tree = view_tree(lang, source, view)
        assert tree_errors(lang, tree) == _kept(lang, parse_once(lang, view.text), _error_nodes(parse_once(lang, view.text).root_node, []))
    asked: list[int] = []
    readings = tree_errors_module._readings
    monkeypatch.setattr(tree_errors_module, "_readings", lambda lang, query, tree, errors: asked.append(len(errors)) or readings(lang, query, tree, errors))
    before = parse(lang, source)  # again: the trees above may have taken its place in the cache
    expected = len(tree_errors(lang, before))
    asked.clear()
    after = b"int added;\n" + source  # far from every error
    tree, _ = edited_tree(lang, before, source, after, 0, 0, 11)
    assert len(tree_errors(lang, tree)) == expected
    assert len(asked) == 1 and asked[0] < len(_error_nodes(tree.root_node, [])) / 2  # those near the start only asked again


@pytest.mark.parametrize(("lang", "source"), [(CPP, CATCH), (C, LIBUV)], ids=["catch2", "libuv"])
def test_many_errors_read_in_one_query_as_one_query_each(lang, source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = _error_nodes(parse_once(lang, source).root_node, [])
    assert len(nodes) >= 3
    monkeypatch.setattr(tree_errors_module, "_BYTES_PER_QUERY", 0)  # one query each
    each = _kept(lang, parse_once(lang, source), nodes)
    monkeypatch.setattr(tree_errors_module, "_BYTES_PER_QUERY", 1 << 30)  # one over the file
    tree = parse_once(lang, source)
    assert _kept(lang, tree, _error_nodes(tree.root_node, [])) == each
    monkeypatch.setattr(tree_errors_module, "_BYTES_PER_QUERY", len(source) // len(nodes))  # one for each cluster of errors
    tree = parse_once(lang, source)
    assert len(tree_errors_module._clusters(_kept(lang, tree, nodes))) < len(nodes)
    tree = parse_once(lang, source)
    assert _kept(lang, tree, _error_nodes(tree.root_node, [])) == each


OVERLOADS = """namespace ns {
class Box {
 public:
  void put(int value);
  void put(int value, int count) {
    total_ += value * count;
  }
  int size() const { return total_; }
 private:
  int total_ = 0;
};
void Box::put(int value) {
  total_ += value;
}
int put(Box& box) {
  box.put(1);
  return box.size();
}
}  // namespace ns
"""


@pytest.mark.parametrize(("lang", "source"), [(CPP, CATCH + OVERLOADS.encode()), (CPP, b"\n\n" + OVERLOADS.encode()),
                                             (default_registry().get("python"), b"\n\nclass A:\n    def f(self): pass\n\ndef f(): pass\n")],
                         ids=["cpp", "cpp-blank-start", "python-blank-start"])
def test_a_definition_is_addressed_among_those_of_its_name_as_among_all(lang, source: bytes) -> None:
    whole = definitions(lang, parse_once(lang, source))
    tree = parse_once(lang, source)  # its own: no list of the whole file kept with it
    for name in sorted({d.name for d in whole if "/" not in d.name}):
        named = definitions_named(lang, tree, name)
        assert [(d.start_byte, d.name_path) for d in named] == [(d.start_byte, d.name_path) for d in whole if d.name == name], name
        for position, definition in enumerate(named):
            paths = [d.name_path for d in named]
            assert address_for(paths, position) == address_for([d.name_path for d in whole], whole.index(definition))


def test_a_header_change_of_an_overload_names_it_by_its_place_among_those_of_its_name() -> None:
    old, new = "  void put(int value, int count) {\n    total_", "  void put(int value, int count, int times) {\n    total_"
    verdict = classify_edit("box.hpp", old, new, content=OVERLOADS)
    assert verdict.decision == "block" and [(d.change, d.name) for d in verdict.definitions] == [("header", "put")]
    assert [dict(op.values)["name_path"] for op in verdict.suggested] == ["ns/Box/put[1]"]


def test_what_a_text_makes_is_kept_for_the_last_texts_only() -> None:
    calls: list[bytes] = []

    @per_text
    def length(text: bytes) -> int:
        calls.append(text)
        return len(text)

    texts = [b"x" * n for n in range(20)]
    assert [length(t) for t in texts] == list(range(20))
    assert [length(t) for t in texts[-12:]] == list(range(8, 20)) and len(calls) == 20  # the last 12 are kept
    assert length(texts[0]) == 0 and len(calls) == 21  # an older one is worked out again
    length.keep((b"made",), 99)
    assert length(b"made") == 99 and length.known(b"none") is None


def _shapes(far: str) -> str:
    """A header whose namespace holds two classes: `far` in the first, an edit's method in the second."""
    return ("#ifndef SHAPES_H\n#define SHAPES_H\n\nnamespace shapes {\n\nclass Fast {\npublic:\n" + far + "};\n\n// " + "padding " * 40
            + "\n\nclass Area {\npublic:\n  int scaled(int width,\n             int height) {\n    return width * height;\n  }\n};\n\n"
            "}  // namespace shapes\n\n#endif\n")


# LLVM's TargetLowering.h: an unnamed pointer parameter with a comment for its name, which the
# grammar reads as an error that stays in its declaration; StringRef.h: a macro before a method,
# which the grammar reads as closing the class early (a missing `}`), so what follows is misread,
# but alike in every view (the macro is defined in another header: no view blanks it); a method's
# `if` split by `#if`/`#else`, each branch opening its block: every view reads one.
STAYS = "  virtual bool allowsMisaligned(unsigned Space = 0,\n      bool * /*Fast*/ = nullptr) const {\n    return false;\n  }\n"
REGROUPS = "  LLVM_NODISCARD\n  std::string str() const {\n    if (!Data) return std::string();\n    return std::string(Data, Length);\n  }\n"
SPLIT = "  int speed() const {\n#if SHAPES_FAST\n    if (fast) {\n#else\n    if (slow) {\n#endif\n      return 1;\n    }\n    return 2;\n  }\n"


@pytest.mark.parametrize(("far", "viewed"), [(STAYS, False), (REGROUPS, False), (SPLIT, True)])
def test_views_are_parsed_for_an_error_far_from_an_edit_only_where_it_regroups_blocks_at_a_directive(far: str, viewed: bool) -> None:
    text = _shapes(far)
    assert parse(CPP, text.encode()).root_node.has_error
    old, new = "             int height) {\n    return", "             int height, int depth) {\n    return"
    verdict = classify_edit("shapes.hpp", old, new, content=text)
    assert verdict.decision == "block" and [(d.change, d.name) for d in verdict.definitions] == [("header", "scaled")], verdict.message
    assert CPP.preprocessor is not None
    parsed = [_TREES.get(CPP.grammar, view.text) is not None for view in views(CPP.preprocessor, text.encode())]
    assert parsed and all(p == viewed for p in parsed)


# googletest's gtest-death-test.cc: each branch's `if (...) { }` and one `else {` after the
# `#endif`; the tree reads the `else` block as missing its `}` five lines after the `#endif`, and
# the namespace closes early, so a function after it reads as outside `internal`.
SPLIT_ELSE = """namespace testing {
namespace internal {

bool Create(int style) {
#if OS_WINDOWS

  if (style == 1) {
    make(1);
  }

#else

  if (style == 2) {
    make(2);
  }

#endif  // OS_WINDOWS

  else {  // NOLINT
    report("unknown");
    return false;
  }

  return true;
}

static int Descriptor(unsigned int parent,
                      int handle) {
  return parent + handle;
}

}  // namespace internal
}  // namespace testing
"""


def test_an_error_lines_after_a_conditional_that_caused_it_has_the_write_judged_on_the_views() -> None:
    old, new = "                      int handle) {\n  return", "                      int handle, int added) {\n  return"
    verdict = classify_edit("death.cc", old, new, content=SPLIT_ELSE)
    assert verdict.decision == "block"
    assert [(d.name_path, d.change) for d in verdict.definitions] == [("testing/internal/Descriptor", "header")], verdict.message


def test_a_directive_removed_where_the_tree_misreads_the_file_around_it_is_judged_on_the_views() -> None:
    # The tree reads StringRef's class from an earlier method to `operator[]` as one header
    # (LLVM_NODISCARD); no error stands at a directive, but the change is one: the views, which
    # blank it before and read its branches alike after, see a body edit.
    text = (REAL / "llvm_stringref.h").read_text(encoding="utf-8")
    old, new = "#if __cplusplus > 201402L\n      return std::char_traits", "      return std::char_traits"
    verdict = classify_edit("stringref.hpp", old, new, content=text)
    assert (verdict.decision, verdict.reason) == ("allow", "body_only"), verdict.message


@pytest.mark.parametrize("name", ["put", "Box", "aa", "operator()", "operator new", "operator ==", "x"])
def test_a_name_is_found_where_a_pattern_search_finds_it(name: str) -> None:
    text = b"aaa aa put(x) Box::put  operator()() operator  new operator== operator ==aa x_x x\n" + OVERLOADS.encode()
    pattern = rb"\s+".join(re.escape(word.encode()) for word in name.split())
    edges = (rb"(?<!\w)" if re.match(r"\w", name) else b"", rb"(?!\w)" if re.search(r"\w$", name) else b"")
    assert _spelled(text, name, name.split()) == [m.start() for m in re.finditer(edges[0] + pattern + edges[1], text)]
