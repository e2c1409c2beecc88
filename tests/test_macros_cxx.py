"""Issue 22, point 6: C, C++ and Rust as they are written. Macros and preprocessor conditionals
that tree-sitter misreads neither refuse a valid write nor make a body edit structural; tests a
macro defines (TEST_CASE, TEST_F, TEST_IMPL) are definitions; real typos are still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.gate.checker import classify_edit
from gateway.gate.verdict import Classification
from gateway.langs import default_registry
from gateway.syntax import language_for

REAL = Path(__file__).parent / "real_code"
KQUEUE = (REAL / "libuv_kqueue.c").read_text()
TEST_IMPL = (REAL / "libuv_test_impl.c").read_text()
CATCH2 = (REAL / "catch2_misc.tests.cpp").read_text()
CWKSP = (REAL / "zstd_cwksp.h").read_text()
LOG = (REAL / "log_macros.rs").read_text()
PRESPLIT = (REAL / "zstd_presplit.h").read_text()
MACRO_IMPL = (REAL / "catch2_macro_impl.hpp").read_text()
REGISTRY = (REAL / "catch2_test_registry.hpp").read_text()
RUN_CONTEXT = (REAL / "catch2_run_context.cpp").read_text()
FREESTANDING = (REAL / "lz4_freestanding.c").read_text()


def judge(path: str, text: str, old: str, new: str) -> Classification:
    assert text.count(old) == 1, old
    return classify_edit(path, old, new, content=text)


def changes(verdict: Classification) -> list[tuple[str, str]]:
    return [(d.change, d.new_name_path or d.name_path) for d in verdict.definitions]


def test_a_macro_prefix_is_not_a_syntax_error_and_its_function_a_definition() -> None:
    added = "\n\nMEM_STATIC int ZSTD_cwksp_is_empty(size_t size) {\n    return size == 0;\n}\n"
    verdict = judge("zstd_cwksp.h", CWKSP, "    return ZSTD_cwksp_alloc_size(ZSTD_cwksp_align(size, alignment));\n}\n",
                    "    return ZSTD_cwksp_alloc_size(ZSTD_cwksp_align(size, alignment));\n}" + added)
    assert verdict.reason == "definition" and changes(verdict) == [("added", "ZSTD_cwksp_is_empty")]
    body = judge("zstd_cwksp.h", CWKSP, "    size_t const mask = align - 1;\n    assert(ZSTD_isPower2(align));\n",
                 "    size_t const mask = align - 1;\n    assert(ZSTD_isPower2(align));\n    assert(size >= 0);\n")
    assert (body.decision, body.reason) == ("allow", "body_only")
    prefixed = judge("zstd_cwksp.h", CWKSP, "MEM_STATIC size_t ZSTD_cwksp_align(size_t size, size_t align) {\n    size_t",
                     "MEM_STATIC FORCE_INLINE size_t ZSTD_cwksp_align(size_t size, size_t align) {\n    size_t")
    assert prefixed.reason != "syntax_error"


def test_extern_c_inside_ifdef_cplusplus_is_not_refused() -> None:
    first = "MEM_STATIC size_t ZSTD_cwksp_available_space(ZSTD_cwksp* ws);\n"
    last = "    return ZSTD_cwksp_alloc_size(ZSTD_cwksp_align(size, alignment));\n}\n"
    text = CWKSP.replace(first, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" + first).replace(
        last, last + "\n#ifdef __cplusplus\n}\n#endif\n")
    for path in ("zstd_cwksp.h", "zstd_cwksp.c", "zstd_cwksp.cpp"):
        # In C the block is not compiled; in C++ its `}` must come in the same write.
        opening = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" + first
        verdict = judge(path, CWKSP, first, opening) if not path.endswith(".cpp") else judge(path, CWKSP, CWKSP, text)
        assert verdict.reason != "syntax_error", verdict.message
        body = judge(path, text, "    assert(ZSTD_isPower2(align));\n", "    assert(ZSTD_isPower2(align));\n    assert(align);\n")
        assert (body.decision, body.reason) == ("allow", "body_only"), body.message


def test_a_typedef_added_inside_extern_c_closed_in_another_if_block_is_blocked() -> None:
    # zstd commit a167571db: the tree's error (a missing #endif) is at the end of the file
    old = "#endif\n\n#define ZSTD_SLIPBLOCK_WORKSPACESIZE"
    added = judge("zstd_preSplit.h", PRESPLIT, old, "#endif\n\ntypedef enum { split_lvl1, split_lvl2 } ZSTD_SplitBlock_strategy_e;\n\n"
                  "#define ZSTD_SLIPBLOCK_WORKSPACESIZE")
    assert added.reason == "definition" and changes(added) == [("added", "ZSTD_SplitBlock_strategy_e")]
    comment = judge("zstd_preSplit.h", PRESPLIT, " * note2:\n", " * note2: (see below)\n *\n")
    assert comment.decision == "allow" and comment.reason != "syntax_error", comment.message


def test_an_if_split_across_ifdef_and_else_is_a_body_edit() -> None:
    # libuv commit 6f096c9d03cd, src/unix/kqueue.c
    old = "      if (ev->filter == EV_OOBAND) {\n        if (w->pevents & UV__POLLPRI)\n"
    new = ("#ifdef __APPLE__\n      /* Match EVFILT_EXCEPT used above for macOS. */\n      if (ev->filter == EVFILT_EXCEPT) {\n"
           "#else\n      if (ev->filter == EV_OOBAND) {\n#endif\n        if (w->pevents & UV__POLLPRI)\n")
    verdict = judge("kqueue.c", KQUEUE, old, new)
    assert (verdict.decision, verdict.reason) == ("allow", "body_only"), verdict.message


def test_a_typo_in_an_else_branch_is_still_refused() -> None:
    old = "      if (ev->filter == EV_OOBAND) {\n"
    new = "#ifdef __APPLE__\n      if (ev->filter == EVFILT_EXCEPT) {\n#else\n      if (ev->filter == EV_OOBAND {\n#endif\n"
    verdict = judge("kqueue.c", KQUEUE, old, new)
    assert verdict.reason == "syntax_error" and verdict.syntax_error is not None
    assert (verdict.syntax_error.line, verdict.syntax_error.what) == (14, "missing `)`")


@pytest.mark.parametrize("path", ["test-udp-mmsg.c", "test-udp-mmsg.cpp"])
def test_test_impl_added_removed_renamed_is_blocked(path: str) -> None:
    end = "  MAKE_VALGRIND_HAPPY(loop);\n  return 0;\n}\n"
    added = judge(path, TEST_IMPL, end, end + "\n\nTEST_IMPL(udp_mmsg_empty) {\n  return 0;\n}\n")
    assert changes(added) == [("added", "udp_mmsg_empty")]
    whole = TEST_IMPL[TEST_IMPL.index("TEST_IMPL(") :]
    assert changes(judge(path, TEST_IMPL, whole, "")) == [("removed", "udp_mmsg_small_buf")]
    renamed = judge(path, TEST_IMPL, "TEST_IMPL(udp_mmsg_small_buf) {\n  struct", "TEST_IMPL(udp_mmsg_tiny_buf) {\n  struct")
    assert changes(renamed) == [("renamed", "udp_mmsg_tiny_buf")]


def test_catch2_test_cases_are_definitions_and_sections_are_not() -> None:
    first = 'TEST_CASE( "random SECTION tests", "[.][sections][failing]" ) {\n    int a = 1;'
    renamed = judge("misc.tests.cpp", CATCH2, first, first.replace("random SECTION tests", "random sections"))
    assert renamed.reason == "definition" and changes(renamed) == [("renamed", "random sections")]
    added = judge("misc.tests.cpp", CATCH2, "        REQUIRE( a != b);\n    }\n}\n\nTEST_CASE( \"nested",
                  "        REQUIRE( a != b);\n    }\n}\n\nTEST_CASE_METHOD( Fixture, \"fixture test\", \"[fx]\" )\n{\n"
                  "    REQUIRE( m_a == 1 );\n}\n\nTEST_CASE( \"nested")
    assert added.reason == "definition" and changes(added) == [("added", "Fixture/fixture test")]
    whole = CATCH2[CATCH2.index('TEST_CASE( "nested') :]
    assert changes(judge("misc.tests.cpp", CATCH2, whole, "")) == [("removed", "nested SECTION tests")]
    section = judge("misc.tests.cpp", CATCH2, "    SECTION( \"not equal\" ) {\n        REQUIRE( a != b);\n    }\n}\n\nTEST",
                    "    SECTION( \"not equal\" ) {\n        REQUIRE( a != b);\n    }\n\n    SECTION( \"equal\" ) {\n"
                    "        REQUIRE( a == a );\n    }\n}\n\nTEST")
    assert (section.decision, section.reason) == ("allow", "body_only"), section.message


@pytest.mark.parametrize("path", ["suite_test.cc", "suite_test.c"])
def test_googletest_tests_are_named_suite_and_name(path: str) -> None:
    text = "TEST_F(LoopTest, RunsOnce) {\n  EXPECT_EQ(1, run());\n}\n\nTEST(LoopTest, Stops) {\n  EXPECT_TRUE(stop());\n}\n"
    renamed = judge(path, text, "TEST_F(LoopTest, RunsOnce) {\n  EXPECT", "TEST_F(LoopTest, RunsTwice) {\n  EXPECT")
    assert changes(renamed) == [("renamed", "LoopTest/RunsTwice")]
    added = judge(path, text, "  EXPECT_TRUE(stop());\n}\n", "  EXPECT_TRUE(stop());\n}\n\nTEST(LoopTest, Starts) {\n  EXPECT_TRUE(1);\n}\n")
    assert changes(added) == [("added", "LoopTest/Starts")]
    body = judge(path, text, "  EXPECT_EQ(1, run());\n}\n", "  EXPECT_EQ(1, run());\n  EXPECT_EQ(2, run());\n}\n")
    assert (body.decision, body.reason) == ("allow", "body_only"), body.message


def test_a_macro_call_without_semicolon_does_not_hide_the_next_function() -> None:
    text = ("#include \"getters.h\"\n\nDEFINE_GETTER(counter)\nDEFINE_GETTER(size)\n\nsize_t total(void)\n{\n    return 1;\n}\n\n"
            "static int next_id(void)\n{\n    return 2;\n}\n")
    renamed = judge("getters.c", text, "size_t total(void)\n{\n    return 1;", "size_t grand_total(void)\n{\n    return 1;")
    assert renamed.reason == "definition" and changes(renamed) == [("renamed", "grand_total")]
    removed = judge("getters.c", text, "\nstatic int next_id(void)\n{\n    return 2;\n}\n", "")
    assert changes(removed) == [("removed", "next_id")]
    body = judge("getters.c", text, "    return 1;\n}\n", "    int n = 1;\n    return n;\n}\n")
    assert (body.decision, body.reason) == ("allow", "body_only"), body.message


def test_a_header_holding_cxx_is_judged_as_cxx() -> None:
    header = ("#pragma once\n\nnamespace uv {\nclass Loop {\n public:\n  explicit Loop(int n) : n_(n) {}\n"
              "  template <typename T> T get() const { return T(); }\n\n private:\n  int n_;\n};\n}  // namespace uv\n")
    registry = default_registry()
    lang = language_for(registry, "loop.h", header)
    assert lang is not None and lang.name == "cpp"
    c_lang = language_for(registry, "zstd_cwksp.h", CWKSP)
    assert c_lang is not None and c_lang.name == "c"
    verdict = judge("loop.h", header, "  int n_;\n};", "  int n_;\n  int m_;\n};")
    assert verdict.language == "cpp" and verdict.reason != "syntax_error"


def test_a_macro_rules_body_edit_is_not_structural() -> None:
    old = "    ($lvl:expr) => ({\n"
    new = "    ($lvl:expr,) => ({\n        $crate::log_enabled!($lvl)\n    });\n\n    ($lvl:expr) => ({\n"
    verdict = judge("macros.rs", LOG, old, new)
    assert (verdict.decision, verdict.reason) == ("allow", "body_only"), verdict.message
    renamed = judge("macros.rs", LOG, "macro_rules! log_enabled {\n", "macro_rules! log_is_enabled {\n")
    assert changes(renamed) == [("renamed", "log_is_enabled")]


@pytest.mark.parametrize(("old", "new", "line", "column", "what"), [
    ("  ASSERT_OK(uv_udp_init_ex(loop, &recver, AF_UNSPEC | UV_UDP_RECVMMSG));\n",
     "  ASSERT_OK(uv_udp_init_ex(loop, &recver, AF_UNSPEC | UV_UDP_RECVMMSG);\n", 8, 71, "missing `)`"),
    ("  loop = uv_default_loop();\n", "  loop = uv_default_loop()\n", 7, 27, "missing `;`"),
])
def test_a_real_typo_in_c_is_still_refused_with_line_and_column(old: str, new: str, line: int, column: int, what: str) -> None:
    verdict = judge("test-udp-mmsg.c", TEST_IMPL, old, new)
    assert verdict.reason == "syntax_error" and verdict.syntax_error is not None, verdict.message
    assert (verdict.syntax_error.line, verdict.syntax_error.column, verdict.syntax_error.what) == (line, column, what)
    assert f"line {line}:{column}" in verdict.message


def test_a_macro_body_is_not_judged_as_code() -> None:
    # Catch2 commit b2b7cbdc: tree-sitter ends the #define at `/* ... */ \` and reads the rest as code
    old = "        INTERNAL_CATCH_REACT( catchAssertionHandler ) \\\n    } while"
    verdict = judge("catch_test_macro_impl.hpp", MACRO_IMPL, old, "        catchAssertionHandler.complete(); \\\n    } while")
    assert (verdict.decision, verdict.reason) == ("allow", "no_definition"), verdict.message
    removed = judge("catch_test_macro_impl.hpp", MACRO_IMPL, "#define INTERNAL_CATCH_REACT( handler ) handler.complete();\n\n", "")
    assert changes(removed) == [("removed", "INTERNAL_CATCH_REACT")]


def test_pointer_to_member_through_a_pointer_is_not_a_syntax_error() -> None:
    # Catch2 commit f7cd0ba0 adds class TestInvokerFixture, which calls `( f->*m_testAsMethod )()`
    start, end = REGISTRY.index("template <typename C>"), REGISTRY.index("} // namespace")
    before, cls = REGISTRY[:start] + REGISTRY[end:], REGISTRY[start:end]
    added = judge("catch_test_registry.hpp", before, "namespace Catch {\n\n", "namespace Catch {\n\n" + cls)
    assert added.reason == "definition" and changes(added) == [("added", "Catch/TestInvokerFixture")], added.message
    again = judge("catch_test_registry.hpp", REGISTRY, "        ( f->*m_testAsMethod )();\n",
                  "        ( f->*m_testAsMethod )();\n        ( f ->* m_testAsMethod )();\n")
    assert (again.decision, again.reason) == ("allow", "body_only"), again.message
    typo = judge("catch_test_registry.hpp", REGISTRY, "        ( f->*m_testAsMethod )();\n", "        ( f->*m_testAsMethod )(;\n")
    assert typo.reason == "syntax_error"


def test_a_constructors_member_initializer_list_is_its_body() -> None:
    # Catch2 commit f24569a1: a member initialised; the constructor's parameters stay as they were
    old = "        m_lastAssertionInfo{ StringRef(), SourceLineInfo(\"\",0), StringRef(), ResultDisposition::Normal },\n"
    added = judge("catch_run_context.cpp", RUN_CONTEXT, old,
                  old + "        m_outputRedirect( makeOutputRedirect( m_reporter->getPreferences().shouldRedirectStdOut ) ),\n")
    assert (added.decision, added.reason) == ("allow", "body_only"), added.message
    params = judge("catch_run_context.cpp", RUN_CONTEXT, "IEventListenerPtr&& reporter)\n    :   m_runInfo",
                   "IEventListenerPtr&& reporter,\n                           bool quiet)\n    :   m_runInfo")
    assert params.reason == "definition" and changes(params) == [("header", "Catch/RunContext/RunContext")], params.message


def test_an_attribute_after_a_prefix_macro_the_file_defines_is_a_header_change() -> None:
    # lz4 commit 63267a77: `EXTERN_C void __attribute__((...)) _start(void)`, all of it in an #else
    old = "EXTERN_C void _start(void) {\n    test();\n"
    header = judge("freestanding.c", FREESTANDING, old, old.replace("void _start", "void __attribute__((force_align_arg_pointer)) _start"))
    assert header.reason == "definition" and changes(header) == [("header", "_start")], header.message
    body = judge("freestanding.c", FREESTANDING, old, old + "    test();\n")
    assert (body.decision, body.reason) == ("allow", "body_only"), body.message


def test_an_empty_header_takes_the_language_its_write_brings() -> None:
    """An include guard around an empty namespace reads as C and as C++ alike: the C++ the write
    puts in decides (Aider's polyglot C++ stubs; 58 edits were refused as C syntax errors)."""
    header = "#ifndef A_H\n#define A_H\n\nnamespace a {\n}\n\n#endif\n"
    verdict = judge("a.h", header, "namespace a {\n}", "namespace a {\nenum class Color { red, green };\n\nstd::vector<int> convert(int base);\n}")
    assert verdict.language == "cpp" and verdict.reason == "definition", verdict.message
    # C reads `enum class` with a made-up `;` (MISSING, not ERROR): that counts against it too.
    empty = "#if !defined(P_H)\n#define P_H\n\nnamespace p {}  // namespace p\n\n#endif\n"
    filled = "namespace p {\nenum class kind { perfect, abundant };\nkind classify(int n);\n}  // namespace p"
    assert judge("p.h", empty, "namespace p {}  // namespace p", filled).language == "cpp"
    c_header = "#ifndef B_H\n#define B_H\n\n#endif\n"
    assert judge("b.h", c_header, "#define B_H\n", "#define B_H\n\nint area(int w, int h);\n").language == "c"


PARALLEL = """#include <algorithm>
#include <vector>

#ifdef NO_PARALLEL
#define PAR
#else
#include <execution>
#define PAR std::execution::par,
#endif

void twice(std::vector<int>& values) {
    std::transform(values.begin(), values.end(), values.begin(), [](int v) { return 2 * v; });
}
"""


def test_a_macro_that_expands_to_an_argument_and_its_comma_is_not_a_syntax_error() -> None:
    # The polyglot parallel-letter-frequency solution: `std::transform(PAR_UNSEQ texts.cbegin(), ...)`
    old = "std::transform(values.begin()"
    verdict = judge("twice.cpp", PARALLEL, old, "std::transform(PAR values.begin()")
    assert verdict.decision == "allow" and verdict.syntax_error is None, verdict.message
    typo = judge("twice.cpp", PARALLEL, old, "std::transform(PAR values.begin(")
    assert typo.reason == "syntax_error", typo.message


def test_a_lifetime_bound_before_the_trait_is_not_a_syntax_error() -> None:
    # The polyglot react solution: tree-sitter-rust reads `dyn 'a + Fn(..)` as a stray `'`.
    text = "pub struct Cell<'a, T> {\n    value: T,\n}\n"
    verdict = judge("lib.rs", text, "    value: T,\n", "    value: T,\n    compute: Box<dyn 'a + Fn(&[T]) -> T>,\n")
    assert verdict.syntax_error is None, verdict.message
    typo = judge("lib.rs", text, "    value: T,\n", "    value: T,\n    compute: Box<dyn 'a 'b + Fn(&[T]) -> T>,\n")
    assert typo.reason == "syntax_error", typo.message


def test_a_blank_at_the_end_of_a_line_a_misread_name_spans_is_not_a_rename() -> None:
    # libstdc++'s stl_iterator_base_funcs.h: macros before the return type make tree-sitter read
    # the lines up to `distance` as the function's name.
    text = ("namespace std {\ntemplate<typename _InputIterator>\n  _GLIBCXX_NODISCARD\n  inline _GLIBCXX17_CONSTEXPR\n"
            "  typename iterator_traits<_InputIterator>::difference_type\n  distance(_InputIterator __first, _InputIterator __last)\n"
            "  { return 0; }\n}\n")
    verdict = judge("funcs.h", text, "difference_type\n", "difference_type \n")
    assert verdict.decision == "allow", verdict.message
