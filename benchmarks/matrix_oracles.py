"""Which oracle judges each language of the matrix, and which resolver proves its renames.

Definitions (`Oracle`), per language, each in a process of its own or in this one, never the
gateway's session: Python's `ast`; TypeScript's compiler API for TypeScript, TSX and
JavaScript; Go's go/parser (benchmarks/gooracle); clang's AST (the libclang wheel) for C and
C++; the Kotlin compiler's PSI (kotlin-compiler-embeddable from Maven Central); Ruby's Ripper;
javac's parser; bash's own. Where no parser of the language is reachable here (Rust, C#;
Kotlin when Maven could not resolve its compiler), the language server's documentSymbol,
from a server process and session started for the oracle alone, on a copy of the files: not
independent of the server the gateway uses, and labelled so.

Renames (`ReferenceOracle`): Python's symtable, go/types, TypeScript's checker, clang's
referencedDecl, javac's attribution of the file alone. Other languages' renames (Kotlin, Rust,
C#, Ruby, Bash) are checked by the rename back alone.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path

from benchmarks.oracle import AstOracle, JavaOracle, LspOracle, Oracle, OracleDefinition, RubyOracle, TypeScriptOracle
from benchmarks.oracle_bash import BashOracle
from benchmarks.oracle_clang import ClangOracle, ClangReferences
from benchmarks.oracle_clang import available as clang_available
from benchmarks.oracle_kotlin import KotlinOracle, kotlin_classpath
from benchmarks.oracle_programs import TYPESCRIPT, GoOracle, GoReferences, JavaReferences, TypeScriptReferences, go_oracle
from benchmarks.references import ReferenceOracle
from benchmarks.references_python import PythonScopes
from gateway.api import Gateway

TYPESCRIPT_LIKE = ("typescript", "tsx", "javascript")


class OwnServerOracle:
    """documentSymbol from a server process and session of the oracle's own (a second gateway
    engine on a copy of the files, so a second server process): not the session whose writes
    are judged, but the same server program, so not independent of it."""

    def __init__(self, stack: ExitStack, lang_name: str) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"oracle-{lang_name}-"))
        stack.callback(shutil.rmtree, self.root, True)
        engine = stack.enter_context(Gateway(self.root))
        lang = engine.registry.get(lang_name)
        session = engine.sessions.session_for(lang)
        self.inner = LspOracle(session, lang) if session else None
        self.name = f"not independent: documentSymbol ({session.name if session else '?'}, a server process of its own)"

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        assert self.inner is not None
        copy = self.root / path.name
        copy.write_text(text)
        return self.inner.definitions(copy, text)


def definition_oracle(stack: ExitStack, lang_name: str) -> Oracle | None:
    """The language's definition oracle, started on `stack`; None where none runs here."""
    node, javac, java = shutil.which("node"), shutil.which("javac"), shutil.which("java")
    if lang_name == "python":
        return AstOracle()
    if lang_name == "ruby" and shutil.which("ruby"):
        return RubyOracle(str(shutil.which("ruby")))
    if lang_name == "bash" and shutil.which("bash"):
        return BashOracle(str(shutil.which("bash")))
    if lang_name == "java" and javac and java:
        return JavaOracle(javac, java)
    if lang_name in TYPESCRIPT_LIKE and node and TYPESCRIPT.is_dir():
        return TypeScriptOracle(node, TYPESCRIPT)
    if lang_name == "go" and (binary := go_oracle()):
        return GoOracle(binary)
    if lang_name in ("c", "cpp") and clang_available():
        return ClangOracle(cpp=lang_name == "cpp")
    if lang_name == "kotlin" and javac and java and (classpath := kotlin_classpath()):
        return KotlinOracle(javac, java, classpath)
    server = OwnServerOracle(stack, lang_name)
    return server if server.inner else None


def reference_oracle(lang_name: str) -> ReferenceOracle | None:
    """The language's rename judge; None where renames are checked by the rename back alone."""
    node, javac, java = shutil.which("node"), shutil.which("javac"), shutil.which("java")
    if lang_name == "python":
        return PythonScopes()
    if lang_name == "java" and javac and java:
        return JavaReferences(javac, java)
    if lang_name in TYPESCRIPT_LIKE and node and TYPESCRIPT.is_dir():
        return TypeScriptReferences(node, TYPESCRIPT)
    if lang_name == "go" and (binary := go_oracle()):
        return GoReferences(binary)
    if lang_name in ("c", "cpp") and clang_available():
        return ClangReferences(cpp=lang_name == "cpp")
    return None
