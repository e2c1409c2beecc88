"""The language matrix's oracles (benchmarks/matrix_oracles.py): each language's own parser and
resolver, never the gateway's, and the rename proof they give (benchmarks/references.py).

Every rename judge is shown a correct rename (proven), a rename of the declaration alone (its
references left: not proven) and a rename of every same-spelled identifier (a namesake renamed
too: not proven). The oracles run for real: Python's symtable in process, Go's go/types and
TypeScript's checker as programs of their own, clang's front end through libclang.
"""

from __future__ import annotations

import ast
import contextlib
import re
import shutil
from pathlib import Path

from benchmarks.matrix_ops import OperationTally, check_definition
from benchmarks.matrix_oracles import OwnServerOracle, definition_oracle, reference_oracle
from benchmarks.oracle import label
from benchmarks.oracle_clang import ClangOracle, ClangReferences
from benchmarks.oracle_kotlin import KotlinOracle, kotlin_classpath
from benchmarks.oracle_programs import TYPESCRIPT, GoOracle, GoReferences, JavaReferences, TypeScriptReferences, go_oracle
from benchmarks.references import ReferenceOracle, judge_rename, renamed_occurrences
from benchmarks.references_python import PythonScopes
from gateway.api import Gateway

PYTHON = """\
def helper(x):
    return x + 1


class A:
    def helper(self, y):
        helper = 3
        return [helper for helper in range(y)]

    def other(self):
        return helper(self.helper(2))


def use():
    global helper
    return helper(1)
"""

CALLERS = """\
def helper(x):
    return x + 1


class A:
    def size(self, y):
        return [helper(v) for v in range(y)]

    def other(self):
        return helper(len(self.size(2)))
"""

GO = """\
package main

import "fmt"

type T struct{ n int }

func (t *T) run(x int) int { return t.n + x }

func run(n int) int {
	t := &T{n: n}
	run := t.run(n)
	fmt.Println(run)
	return run
}

var f = func(a int) int { return run(a) }
"""

TS = """\
// A 🦊 before the definitions: the compiler counts UTF-16 units.
export class A {
  run(x: number): number { return this.helper(x); }
  helper(y: number): number { return y; }
}
class B { helper(): string { return "b"; } }
function helper(n: number) { const helper = n; return helper; }
new A().helper(helper(2));
new B().helper();
"""

JAVA = """\
package demo;

import org.missing.Thing;

public class A {
    private int size;

    public A() { this.size = 0; }

    public int size() { return size; }

    int grow(int size) {
        this.size += size;
        return size() + other(new A());
    }

    static int other(A a) { Thing t = null; return a.size(); }
}

class B {
    int size() { return 1; }
}
"""

KOTLIN = """\
package demo

/** A box. */
class Box<T>(val item: T) {
    constructor() : this(null as T)
    fun get(): T = item
    companion object { fun make() = Box(1) }
}

typealias Boxes = List<Box<Int>>
val twice = { x: Int -> x * 2 }
fun top(a: Int): Int {
    fun local() = a
    return local()
}
"""

CPP = """\
#include <vector>
#include "not/on/this/machine.h"
namespace ns {
struct Counter {
  Counter() : count(0) {}
  int count;
  int next() { return ++count; }
};
int next(int x) { return x + 1; }
}
int main() {
  ns::Counter c;
  int next = c.next();
  std::vector<int> v;
  return ns::next(next);
}
"""


def _imported(module: str) -> set[str]:
    """The modules a module of benchmarks/ imports, and theirs within benchmarks/, read from their source."""
    seen, pending = set(), [module]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        path = Path(__file__).resolve().parent.parent / (name.replace(".", "/") + ".py")
        if not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            pending += [n for n in names if n.startswith(("benchmarks", "gateway"))]
    return seen


def test_the_independent_oracles_import_nothing_of_the_gateway() -> None:
    independent = ["benchmarks.oracle", "benchmarks.oracle_bash", "benchmarks.oracle_clang", "benchmarks.oracle_programs",
                   "benchmarks.oracle_kotlin", "benchmarks.references", "benchmarks.references_python"]
    for module in independent:
        assert not {m for m in _imported(module) if m.startswith("gateway")}, module


def _wrong_renames(text: str, at: int, old: str) -> tuple[str, str]:
    """(the declaration alone renamed, every identifier spelled `old` renamed)."""
    new = old + "Zq"
    return text[:at] + new + text[at + len(old) :], re.sub(r"(?<![\w$])" + old + r"(?![\w$])", new, text)


def _judged(oracle: ReferenceOracle, name: str, text: str, at: int, old: str, right: str) -> list[str | None]:
    declaration_only, every = _wrong_renames(text, at, old)
    return [judge_rename(oracle, Path(name), text, after, at, old, old + "Zq") for after in (right, declaration_only, every)]


def _assert_only_right_passes(verdicts: list[str | None]) -> None:
    right, declaration_only, every = verdicts
    assert right is None
    assert declaration_only is not None and "left unrenamed" in declaration_only
    assert every is not None and "unrelated" in every


def test_renamed_occurrences_say_which_identifiers_changed_and_nothing_else() -> None:
    before = "run(run_x); run"
    assert renamed_occurrences(before, "runZq(run_x); run", "run", "runZq") == {0}
    assert renamed_occurrences(before, "runZq(run_x); runZq", "run", "runZq") == {0, 12}
    assert renamed_occurrences(before, "runZq(run_y); run", "run", "runZq") is None


def test_python_scopes_prove_a_method_rename_and_refuse_wrong_ones() -> None:
    at = PYTHON.index("helper(self")
    right = PYTHON.replace("def helper(self", "def helperZq(self").replace("self.helper(", "self.helperZq(")
    _assert_only_right_passes(_judged(PythonScopes(), "m.py", PYTHON, at, "helper", right))


def test_python_scopes_prove_a_function_rename_through_global_and_calls() -> None:
    at = PYTHON.index("helper(x)")
    right = PYTHON.replace("def helper(x)", "def helperZq(x)").replace("return helper(", "return helperZq(").replace(
        "global helper", "global helperZq")
    _assert_only_right_passes(_judged(PythonScopes(), "m.py", PYTHON, at, "helper", right))


def test_python_scopes_count_a_name_left_unbound() -> None:
    resolution = PythonScopes().resolve(Path("m.py"), "def f():\n    return g() + len([])\n")
    assert resolution is not None and resolution.errors == 1
    assert PythonScopes().resolve(Path("m.py"), "def f(:\n") is None


def test_go_oracle_lists_definitions_with_go_printer_headers(processes: None) -> None:
    binary = go_oracle()
    assert binary is not None, "go is on this machine: the matrix's Go oracle must build"
    found = GoOracle(binary).definitions(Path("m.go"), GO)
    assert found is not None
    assert [(d.name_path, d.kind) for d in found] == [("T", "struct"), ("T/run", "function"), ("run", "function"), ("f", "function")]
    assert GO[found[2].name_start : found[2].name_end] == "run"
    assert found[2].header == "func run(n int) int"
    assert GoOracle(binary).definitions(Path("m.go"), GO + "func broken( {\n") is None
    reformatted = GoOracle(binary).definitions(Path("m.go"), GO.replace("func run(n int) int {", "func run(n  int)  int {"))
    assert reformatted is not None and label(found, reformatted) == "none"
    reheaded = GoOracle(binary).definitions(Path("m.go"), GO.replace("func run(n int) int {", "func run(n int64) int {"))
    assert reheaded is not None and label(found, reheaded) == "header"


def test_go_types_prove_a_function_rename_and_refuse_wrong_ones(processes: None) -> None:
    binary = go_oracle()
    assert binary is not None
    at = GO.index("run(n int)")
    right = GO.replace("func run(n", "func runZq(n").replace("return run(a)", "return runZq(a)")
    _assert_only_right_passes(_judged(GoReferences(binary), "m.go", GO, at, "run", right))


def test_go_types_refuse_a_rename_that_makes_a_type_error(processes: None) -> None:
    binary = go_oracle()
    assert binary is not None
    at = GO.index("run(n int)")
    clash = GO.replace("func run(n", "func f(n").replace("return run(a)", "return f(a)")  # every reference renamed, to a taken name
    verdict = judge_rename(GoReferences(binary), Path("m.go"), GO, clash, at, "run", "f")
    assert verdict is not None and "errors after the rename" in verdict


def test_typescript_checker_proves_a_method_rename_and_refuses_wrong_ones(processes: None) -> None:
    node = shutil.which("node")
    assert node and TYPESCRIPT.is_dir(), "make setup installs node's typescript"
    at = TS.index("helper(y")
    right = TS.replace("this.helper(", "this.helperZq(").replace("  helper(y", "  helperZq(y").replace("new A().helper(", "new A().helperZq(")
    _assert_only_right_passes(_judged(TypeScriptReferences(node, TYPESCRIPT), "m.ts", TS, at, "helper", right))


def test_typescript_compiler_definitions_are_at_their_names_past_astral_characters(processes: None) -> None:
    with contextlib.ExitStack() as stack:
        oracle = definition_oracle(stack, "typescript")
        assert oracle is not None and oracle.name.startswith("TypeScript 5.") and "compiler API" in oracle.name
        found = oracle.definitions(Path("m.ts"), TS)
    assert found is not None
    assert [TS[d.name_start : d.name_end] for d in found] == ["A", "run", "helper", "B", "helper", "helper"]


def test_javac_attribution_proves_a_method_rename_and_refuses_wrong_ones(processes: None) -> None:
    javac, java = shutil.which("javac"), shutil.which("java")
    assert javac and java
    at = JAVA.index("size() { return size")
    right = JAVA.replace("int size() { return size", "int sizeZq() { return size").replace("return size() +", "return sizeZq() +").replace(
        "a.size()", "a.sizeZq()")
    _assert_only_right_passes(_judged(JavaReferences(javac, java), "A.java", JAVA, at, "size", right))


def test_javac_attribution_proves_a_class_rename_through_its_constructor(processes: None) -> None:
    javac, java = shutil.which("javac"), shutil.which("java")
    assert javac and java
    at = JAVA.index("A {")
    right = re.sub(r"\bA\b", "AZq", JAVA)
    assert judge_rename(JavaReferences(javac, java), Path("A.java"), JAVA, right, at, "A", "AZq") is None


def test_kotlin_compiler_psi_lists_definitions_at_their_names_in_crlf_text_too(processes: None) -> None:
    classpath, javac, java = kotlin_classpath(), shutil.which("javac"), shutil.which("java")
    assert classpath and javac and java, "make setup resolves kotlin-compiler-embeddable (benchmarks/kotlinpsi/pom.xml)"
    oracle = KotlinOracle(javac, java, classpath)
    for text in (KOTLIN, KOTLIN.replace("\n", "\r\n")):
        found = oracle.definitions(Path("m.kt"), text)
        assert found is not None
        assert [d.name_path for d in found] == ["Box", "Box/constructor", "Box/get", "Box/make", "Boxes", "twice", "top", "top/local"]
        assert [text[d.name_start : d.name_end] for d in found][-2:] == ["top", "local"]
        assert text[found[0].start :].startswith("class Box")  # the doc comment is not the header
    assert oracle.definitions(Path("m.kt"), "fun broken( {\n") is None
    reheaded = oracle.definitions(Path("m.kt"), KOTLIN.replace("fun get(): T", "fun get(): T?"))
    first = oracle.definitions(Path("m.kt"), KOTLIN)
    assert reheaded is not None and first is not None and label(first, reheaded) == "header"


def test_clang_oracle_lists_definitions_past_a_missing_header(processes: None) -> None:
    found = ClangOracle(cpp=True).definitions(Path("m.cpp"), CPP)
    assert found is not None
    assert [d.name_path for d in found] == ["ns", "ns/Counter", "ns/Counter/Counter", "ns/Counter/next", "ns/next", "main"]
    assert found[4].header == "int next ( int x )" and found[4].body == "{ return x + 1 ; }"


def test_clang_referenced_decls_prove_a_function_rename_and_refuse_wrong_ones(processes: None) -> None:
    at = CPP.index("next(int x)")
    right = CPP.replace("int next(int x)", "int nextZq(int x)").replace("ns::next(", "ns::nextZq(")
    _assert_only_right_passes(_judged(ClangReferences(cpp=True), "m.cpp", CPP, at, "next", right))


def test_an_lsp_oracle_runs_a_server_process_of_its_own(tmp_path: Path, servers: None) -> None:
    (tmp_path / "go.mod").write_text("module m\n\ngo 1.21\n")
    (tmp_path / "m.go").write_text(GO)
    with contextlib.ExitStack() as stack, Gateway(tmp_path) as gateway:
        oracle = OwnServerOracle(stack, "go")
        assert oracle.inner is not None and oracle.name.startswith("not independent")
        ours = gateway.sessions.session_for(gateway.registry.get("go"))
        assert ours is not None and ours is not oracle.inner.session and ours.pid != oracle.inner.session.pid
        found = oracle.definitions(tmp_path / "m.go", GO)
        assert found is not None and {"T", "run"} <= {d.name_path for d in found}


def test_the_matrix_rename_check_is_judged_by_the_reference_oracle(tmp_path: Path, servers: None) -> None:
    (tmp_path / "m.py").write_text(CALLERS)
    references = reference_oracle("python")
    assert isinstance(references, PythonScopes)
    tally = OperationTally()
    with Gateway(tmp_path) as gateway:
        definitions = [s for s in gateway.symbol_service.symbols("m.py").symbols if s.has_definition]
        for name_path in ("helper", "A/size"):
            index = next(i for i, s in enumerate(definitions) if s.name_path == name_path)
            check_definition(gateway, tmp_path, "m.py", index, tally, references)
    assert tally.to_json()["rename"] == {"passed": 2, "tried": 2, "judged": 2}, tally.failures
    assert (tmp_path / "m.py").read_text() == CALLERS
