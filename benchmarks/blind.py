"""Where clangd, as the replay's oracle, cannot see a C or C++ edit: clangd compiles a file
for one platform (here Linux, x86-64), so a change in an `#ifdef _WIN32` or `__APPLE__`
branch, or in the conditions themselves, is invisible to it or seen as definitions appearing
and vanishing, while the gate reads every branch. Such edits are counted apart, not judged."""

from __future__ import annotations

import re
from collections import Counter

from benchmarks.oracle import OracleDefinition, label
from gateway.gate.effect import Effect
from gateway.gate.verdict import Classification
from gateway.langs import Preprocessor
from gateway.preprocessor import decided

# What clangd on Linux defines and does not: an #if on these is decided as the oracle reads it.
LINUX = Preprocessor(
    defined=frozenset({"__linux__", "__linux", "linux", "__unix__", "__unix", "unix", "__gnu_linux__", "__GNUC__",
                       "__clang__", "__x86_64__", "__ELF__", "__STDC__"}),
    undefined=frozenset({"_WIN32", "_WIN64", "WIN32", "_MSC_VER", "__MINGW32__", "__MINGW64__", "__CYGWIN__", "__APPLE__",
                         "__MACH__", "__FreeBSD__", "__FreeBSD_kernel__", "__OpenBSD__", "__NetBSD__", "__DragonFly__",
                         "__sun", "sun", "_AIX", "__MVS__", "__OS400__", "__PASE__", "__QNX__", "__HAIKU__", "__ANDROID__",
                         "__EMSCRIPTEN__", "__wasi__", "__GNU__", "__hpux", "__CloudABI__", "__Fuchsia__"}),
    macro_line=re.compile(b""),
)
INACTIVE = "oracle blind: inactive preprocessor branch"
DIRECTIVES = "oracle viewpoint: only #if conditions changed"
MACROS = "oracle blind: clangd's outline lists no macros"
MOVED = "oracle viewpoint: the edit moves #if/#endif, so definitions written on both sides enter or leave what clangd compiles"
OUTSIDE = "oracle viewpoint: definitions outside the edit appear or vanish (includes, macros or #if decide what clangd compiles)"
_BLANK = re.compile(rb"\s*")


def _outside(source: bytes, start: int, end: int, spans: list[tuple[int, int]]) -> bytes:
    """source[start:end] less the parts inside any of the spans."""
    kept, at = [], start
    for s, e in sorted(spans):
        if e <= at or s >= end:
            continue
        kept.append(source[at : max(at, s)])
        at = max(at, e)
    kept.append(source[at:end])
    return b"".join(kept)


def _changed(text: str, spans: list[tuple[int, int]], dead: list[tuple[int, int]], directives: list[tuple[int, int]]) -> set[str]:
    """Where the changed characters lie: "live" (code clangd compiles), "dead", "directive"."""
    source = text.encode("utf-8", "surrogatepass")
    found: set[str] = set()
    for start, end in spans:
        b0, b1 = len(text[:start].encode("utf-8", "surrogatepass")), len(text[:end].encode("utf-8", "surrogatepass"))
        chunk, compiled, undirected = source[b0:b1], _outside(source, b0, b1, dead + directives), _outside(source, b0, b1, directives)
        found |= {"live"} if _BLANK.fullmatch(compiled) is None else set()
        found |= {"dead"} if _BLANK.fullmatch(undirected) is None and compiled != undirected else set()
        found |= {"directive"} if undirected != chunk else set()
    return found


def oracle_blind(language: str, effect: Effect) -> str | None:
    """Why clangd cannot judge this edit, or None when it can."""
    if language not in ("c", "cpp") or effect.before is None:
        return None
    spec = Preprocessor(LINUX.defined | ({"__cplusplus"} if language == "cpp" else set()),
                        LINUX.undefined | ({"__cplusplus"} if language == "c" else set()), LINUX.macro_line)
    found: set[str] = set()
    for text, spans in ((effect.before, [r.before for r in effect.regions]), (effect.after, [r.after for r in effect.regions])):
        found |= _changed(text, spans, *decided(spec, text.encode("utf-8", "surrogatepass")))
    if "live" in found:
        return None
    return INACTIVE if "dead" in found else DIRECTIVES if "directive" in found else None


def macros_only(language: str, verdict: Classification, effect: Effect) -> str | None:
    """MACROS when every definition the gate blocks on is a `#define f(...)`: the gate counts a
    function-like macro's parameters as its signature; clangd's documentSymbol lists no macros."""
    if language not in ("c", "cpp") or not verdict.blocked or not verdict.definitions:
        return None
    text = effect.after + "\n" + (effect.before or "")
    for definition in verdict.definitions:
        names = {definition.name, (definition.new_name_path or "").rsplit("/", 1)[-1]} - {""}
        if not all(re.search(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}\(", text, re.MULTILINE) for name in names):
            return None
    return MACROS


def outside_change(language: str, before: list[OracleDefinition], after: list[OracleDefinition], effect: Effect) -> str | None:
    """OUTSIDE when clangd sees definitions appear or vanish but none of them in the edit's text:
    the edit changed an #include, a macro or an #if that decides what clangd compiles (or which
    declarations it can resolve) elsewhere in the file."""
    if language not in ("c", "cpp") or label(before, after) != "definition":
        return None
    count_b, count_a = Counter(d.name_path for d in before), Counter(d.name_path for d in after)
    changed = {path for path in count_b | count_a if count_b[path] != count_a[path]}

    def meets(found: list[OracleDefinition], spans: list[tuple[int, int]]) -> bool:
        return any(d.name_path in changed and any(d.start <= e and s <= d.end for s, e in spans) for d in found)

    if meets(before, [r.before for r in effect.regions]) or meets(after, [r.after for r in effect.regions]):
        return MOVED if _moved(before, after, changed, effect) else None
    return OUTSIDE


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b", re.MULTILINE)


def _moved(before: list[OracleDefinition], after: list[OracleDefinition], changed: set[str], effect: Effect) -> bool:
    """Whether the edit changes a conditional directive and every definition clangd sees appear
    (or vanish) is written, up to its name, as often before the edit as after it."""
    text_b, text_a = effect.before or "", effect.after

    def directive(text: str, start: int, end: int) -> bool:
        return _DIRECTIVE.search(text, text.rfind("\n", 0, start) + 1, text.find("\n", end) % (len(text) + 1)) is not None

    if not any(directive(text_b, *r.before) or directive(text_a, *r.after) for r in effect.regions):
        return False
    heads = [text_a[d.start : d.name_end] for d in after if d.name_path in changed]
    heads += [text_b[d.start : d.name_end] for d in before if d.name_path in changed]
    return all(text_b.count(head) == text_a.count(head) for head in heads)  # none written or deleted by the edit
