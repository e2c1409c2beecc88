"""The language matrix's checks of each symbol operation on one file, through the backend the
gateway picks for it (the language's server, else tree-sitter).

For a few definitions per file (the ones the round trips take):
- find: `find_symbol` of the definition's address answers that definition, and only it;
- replace: `replace_symbol` with the definition's own text, one blank between two tokens of
  its last lines doubled, gives exactly that text; replacing back restores the file's bytes;
- rename: `rename_symbol` to a fresh name changes the file and lists the definition under
  the new name; where the language has a reference oracle (references.py: a resolver of the
  language's own, not the gateway), it proves that every reference to the definition in the
  file was renamed, no namesake was, and the file has no more errors than before; renaming
  back restores the file's bytes (a rename that says it is not complete counts when it
  renamed the definition: the gateway reports what it left);
and per file, symbols: the oracle's definitions the listing reports at the same name
position (no count without an independent oracle). remove+insert is the matrix's round trip
(remove a definition, insert its text back beside its neighbour: the bytes must come back).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.oracle import OracleDefinition
from benchmarks.references import ReferenceOracle, judge_rename
from gateway.api import Gateway
from gateway.errors import GatewayError
from gateway.namepath import address_for
from gateway.symbols.model import Symbol

OPERATIONS = ("symbols", "find", "replace", "rename", "remove+insert")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INNER_BLANK = re.compile(r"(?<=\S) (?=\S)")
SUFFIX = "Zq"


class OperationTally:
    """Per operation: [passed, tried], and why the others did not pass."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {op: [0, 0] for op in OPERATIONS}
        self.failures: list[str] = []
        self.renames_judged = 0  # renames a reference oracle judged (the others: the rename back alone)

    def add(self, op: str, passed: bool, why: str = "") -> None:
        self.counts[op][0] += passed
        self.counts[op][1] += 1
        if not passed and why:
            self.failures.append(f"{op}: {why}")

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, Any] = {op: {"passed": p, "tried": t} for op, (p, t) in self.counts.items()}
        counts["rename"]["judged"] = self.renames_judged
        return counts


def check_symbols(gateway: Gateway, name: str, oracle_definitions: list[OracleDefinition] | None, tally: OperationTally) -> None:
    """Each oracle definition is listed at its name's position, or else under its name (jdtls's
    Kotlin positions are not the names'); each listed symbol answers for one definition only."""
    if not oracle_definitions:
        return
    listed = gateway.symbol_service.symbols(name).symbols
    at = {s.name_start for s in listed}
    unmatched = Counter(s.name for s in listed if s.name_start not in {d.name_start for d in oracle_definitions})
    for definition in oracle_definitions:
        plain = re.split(r"[(<\s]", (definition.name_path or "").rsplit("/", 1)[-1])[0]
        found = definition.name_start in at or unmatched[plain] > 0
        if definition.name_start not in at and found:
            unmatched[plain] -= 1
        tally.add("symbols", found, f"{name}: {definition.name_path or definition.name_start} not listed")


def check_definition(gateway: Gateway, root: Path, name: str, index: int, tally: OperationTally,
                     references: ReferenceOracle | None = None) -> None:
    """find, replace and rename of the file's `index`-th definition (the rename judged by
    `references` where given); the workspace is restored
    after (a server's rename may reach other files: clangd's of a C function with external
    linkage renames its namesakes in every file, and the rename back, asked at once, may not)."""
    path = root / name
    original = path.read_bytes()
    workspace = {file: file.read_bytes() for file in root.iterdir() if file.is_file()}
    view = gateway.symbol_service.symbols(name)
    definitions = [s for s in view.symbols if s.has_definition]
    if index >= len(definitions):
        return
    symbol = definitions[index]
    address = address_for([s.name_path for s in view.symbols], view.symbols.index(symbol))
    text = view.source.text
    try:
        _find(gateway, name, address, symbol, tally)
        _replace(gateway, path, name, address, symbol, text, original, tally)
        _rename(gateway, path, name, address, symbol, original, tally, references)
    finally:
        for file, content in workspace.items():
            if file.read_bytes() != content:
                file.write_bytes(content)
                gateway.symbol_service.symbols(file.name)


def _find(gateway: Gateway, name: str, address: str, symbol: Symbol, tally: OperationTally) -> None:
    try:
        matches = gateway.find_symbol(address, name).to_json()["matches"]
    except GatewayError as error:
        tally.add("find", False, f"{name}: {address}: {error.kind}: {error}")
        return
    lines = [m["start_line"] for m in matches]
    tally.add("find", lines == [symbol.start_line], f"{name}: {address} found at lines {lines}, defined at {symbol.start_line}")


def doubled_blank(symbol: Symbol, text: str) -> str | None:
    """The definition's text with its last blank between two tokens after the name doubled: a
    change inside it that any language's parser reads the same (None when it has no such blank)."""
    code = text[symbol.start : symbol.end]
    blanks = [m.start() for m in _INNER_BLANK.finditer(code) if m.start() > symbol.name_start - symbol.start]
    return code[: blanks[-1]] + " " + code[blanks[-1] :] if blanks else None


def _replace(gateway: Gateway, path: Path, name: str, address: str, symbol: Symbol, text: str, original: bytes, tally: OperationTally) -> None:
    code, edited = text[symbol.start : symbol.end], doubled_blank(symbol, text)
    if edited is None:
        return
    try:
        gateway.replace_symbol(address, name, edited)
        exact = path.read_bytes().decode("utf-8") == text[: symbol.start] + edited + text[symbol.end :]
        gateway.replace_symbol(address, name, code)
    except GatewayError as error:
        tally.add("replace", False, f"{name}: {address}: {error.kind}: {error}")
        return
    restored = path.read_bytes() == original
    tally.add("replace", exact and restored, f"{name}: {address}: {'replaced back, bytes differ' if exact else 'result differs from the text given'}")


def _rename(gateway: Gateway, path: Path, name: str, address: str, symbol: Symbol, original: bytes, tally: OperationTally,
            references: ReferenceOracle | None = None) -> None:
    if not _IDENTIFIER.fullmatch(symbol.name):
        return
    fresh = symbol.name + SUFFIX
    unproven = None
    try:
        answer = gateway.rename_symbol(address, name, fresh).to_json()
        if not answer.get("files", [name]):
            tally.add("rename", False, f"{name}: {address}: answered ok but renamed in no file: {answer.get('message')}")
            return
        view = gateway.symbol_service.symbols(name)
        renamed = [s for s in view.symbols if s.name == fresh and s.depth == symbol.depth]
        if not renamed or path.read_bytes() == original:
            changed = "the file changed" if path.read_bytes() != original else "the file did not change"
            tally.add("rename", False, f"{name}: {address}: no definition named {fresh} listed afterwards ({changed})")
            return
        if references is not None:
            tally.renames_judged += 1
            before = original.decode("utf-8")
            unproven = judge_rename(references, path, before, path.read_bytes().decode("utf-8"), symbol.name_start, symbol.name, fresh)
        target = min(renamed, key=lambda s: abs(s.name_start - symbol.name_start))
        back = address_for([s.name_path for s in view.symbols], view.symbols.index(target))
        gateway.rename_symbol(back, name, symbol.name)
    except GatewayError as error:
        tally.add("rename", False, f"{name}: {address}: {error.kind}: {error}")
        return
    problems = ([f"{references.name}: {unproven}"] if references and unproven else []) + \
        ([] if path.read_bytes() == original else ["renamed back, bytes differ"])
    tally.add("rename", not problems, f"{name}: {address}: {'; '.join(problems)}")
