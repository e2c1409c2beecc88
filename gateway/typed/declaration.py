"""A declaration of a typed edit and its judgement by the validation matrix (kinds.toml)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

from gateway.errors import UsageError
from gateway.typed.kinds import Catalogue, catalogue

MAX_FIELD_CHARS = 20_000


@dataclass(frozen=True)
class Declaration:
    kind: str
    files: tuple[str, ...]
    provenance: str
    rationale: str
    target: str | None = None
    test_files: tuple[str, ...] = ()
    execution_state: str = "normal"
    additional_files: tuple[str, ...] = ()

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Declaration:
        """A declaration from snake_case parameters (the JSON-RPC/MCP object, the CLI's flags)."""
        for name in ("files", "test_files", "additional_files"):
            if not all(isinstance(item, str) for item in params.get(name) or []):
                raise UsageError(f"declare: {name} must be a list of paths")
        return cls(
            kind=params["kind"],
            files=tuple(params["files"]),
            provenance=params["provenance"],
            rationale=params["rationale"],
            target=params.get("target"),
            test_files=tuple(params.get("test_files") or ()),
            execution_state=params.get("execution_state") or "normal",
            additional_files=tuple(params.get("additional_files") or ()),
        )

    @property
    def all_files(self) -> tuple[str, ...]:
        """Every file the grant covers: the files, the accompanying tests, the additional files."""
        return tuple(dict.fromkeys((*self.files, *self.test_files, *self.additional_files)))


def _text_field(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise UsageError(f"declare: {name} must be a string")
    if len(value) > MAX_FIELD_CHARS:
        raise UsageError(f"declare: {name} is longer than {MAX_FIELD_CHARS} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UsageError(f"declare: {name} is not valid UTF-8 (position {error.start})") from None


def check_fields(declaration: Declaration) -> None:
    """Every field of the right type and valid UTF-8, before anything is issued or logged."""
    for name in ("kind", "provenance", "rationale", "execution_state"):
        _text_field(getattr(declaration, name), name)
    if declaration.target is not None:
        _text_field(declaration.target, "target")
    for name in ("files", "test_files", "additional_files"):
        paths = getattr(declaration, name)
        if not isinstance(paths, tuple | list):
            raise UsageError(f"declare: {name} must be a list of paths")
        for index, path in enumerate(paths):
            _text_field(path, f"{name}[{index}]")
            if not path or "\x00" in path:
                raise UsageError(f"declare: {name}[{index}] must be a non-empty path without NUL")


@dataclass(frozen=True)
class Finding:
    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Verdict:
    error: Finding | None
    warnings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def accepted(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "audit_error": self.error.to_json() if self.error else None,
            "audit_warnings": [w.to_json() for w in self.warnings],
        }


def _refusal(declaration: Declaration, data: Catalogue) -> Finding | None:
    rules, kind = data.rules, data.kinds.get(declaration.kind)
    if kind is None:
        return Finding("unknown_kind", f"{declaration.kind!r} is not a kind; `gateway kinds` lists the 21 kinds")
    if declaration.provenance not in rules.provenances:
        return Finding("provenance_invalid", f"provenance must be one of {', '.join(rules.provenances)}")
    if declaration.execution_state not in rules.execution_states:
        return Finding("execution_state_invalid", f"execution_state must be one of {', '.join(rules.execution_states)}")
    if not declaration.rationale.strip():
        return Finding("rationale_required", "a rationale is required: why this change, grounded in what")
    if not declaration.files:
        return Finding("files_required", "at least one file is required")
    if kind.is_workflow:
        if declaration.target is not None:
            return Finding("target_refused", f"{kind.name} is a workflow kind; it takes no target")
    elif declaration.target is None:
        return Finding("target_required", f"{kind.name} needs a target: {' or '.join(rules.targets)}")
    elif declaration.target not in rules.targets:
        return Finding("target_invalid", f"target must be one of {', '.join(rules.targets)}")
    if declaration.additional_files and not kind.is_workflow:
        return Finding("additional_files_refused", f"additional_files are for workflow kinds only, not {kind.name}")
    if kind.requires_test_files and declaration.target == "prod" and not declaration.test_files:
        return Finding("test_files_required", f"a prod {kind.name} needs test_files: {kind.tests}")
    if declaration.provenance in kind.reject_provenance:
        return Finding("provenance_rejected", f"{kind.name} cannot rest on {declaration.provenance}; {kind.stop_and_ask}")
    if declaration.target == "test" and declaration.provenance in rules.reject_provenance_on_test_target:
        return Finding(
            "provenance_rejected",
            f"a test edit cannot rest on {declaration.provenance}: tests encode the specification; ask the user",
        )
    return None


def _warnings(declaration: Declaration, data: Catalogue) -> tuple[Finding, ...]:
    rules, kind = data.rules, data.kinds[declaration.kind]
    found = []
    if declaration.target == "test" and declaration.provenance in rules.warn_provenance_on_test_target:
        found.append(Finding(
            "target_spec_derivation_warn",
            "a test derived from what the code does now pins current behaviour, bugs included; "
            "derive the expected values from the specification",
        ))
    if declaration.provenance == "accepted_artifact" and not rules.artifact_reference.search(declaration.rationale):
        found.append(Finding(
            "citation_lint_missing",
            "provenance accepted_artifact, but the rationale cites no artifact (URL, issue, ticket, commit, ADR or document path)",
        ))
    if not kind.is_workflow and declaration.execution_state in rules.warn_execution_states_for_implementation:
        found.append(Finding(
            "execution_state_repeating_failure",
            "declared while repeating a failure: re-read the recent log first (gateway audit log --since ...) "
            "and the last error in full before another attempt",
        ))
    if declaration.provenance in kind.warn_provenance:
        found.append(Finding(
            "kind_provenance_warn",
            f"{kind.name} on {declaration.provenance} is risky: {kind.stop_and_ask}",
        ))
    unexpected = [
        path for path in declaration.additional_files
        if not any(fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], g) for g in kind.expected_files)
    ]
    if kind.is_workflow and unexpected:
        found.append(Finding(
            "additional_files_warn",
            f"{kind.name} usually writes {', '.join(kind.expected_files)}; these are not: {', '.join(unexpected)}",
        ))
    return tuple(found)


def judge(declaration: Declaration, data: Catalogue | None = None) -> Verdict:
    """The matrix's verdict: the first refusal, or acceptance with every warning that applies."""
    data = data or catalogue()
    error = _refusal(declaration, data)
    return Verdict(error) if error else Verdict(None, _warnings(declaration, data))
