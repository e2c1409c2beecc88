"""The kinds of edit and the validation matrix, read from the package's kinds.toml."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

OBLIGATIONS = ("use_when", "do_not_use", "tests", "stop_and_ask")


@dataclass(frozen=True)
class Kind:
    name: str
    group: str
    summary: str
    use_when: str
    do_not_use: str
    tests: str
    stop_and_ask: str
    reject_provenance: frozenset[str]
    warn_provenance: frozenset[str]
    requires_test_files: bool
    expected_files: tuple[str, ...]

    @property
    def is_workflow(self) -> bool:
        return self.group == "workflow"

    @property
    def description(self) -> str:
        """The obligations as one text: what an agent re-reads every time it picks this kind."""
        return (
            f"{self.summary} USE WHEN: {self.use_when} DO NOT USE: {self.do_not_use} "
            f"TESTS: {self.tests} STOP AND ASK: {self.stop_and_ask}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.name,
            "group": self.group,
            "summary": self.summary,
            **{key: getattr(self, key) for key in OBLIGATIONS},
            "target_required": not self.is_workflow,
            "test_files_required_for_prod": self.requires_test_files,
            "rejected_provenance": sorted(self.reject_provenance),
            "warned_provenance": sorted(self.warn_provenance),
        }


@dataclass(frozen=True)
class Rules:
    provenances: tuple[str, ...]
    execution_states: tuple[str, ...]
    targets: tuple[str, ...]
    reject_provenance_on_test_target: frozenset[str]
    warn_provenance_on_test_target: frozenset[str]
    artifact_reference: re.Pattern[str]
    warn_execution_states_for_implementation: frozenset[str]
    always_protected: tuple[str, ...]
    grant_ttl_seconds: int


@dataclass(frozen=True)
class Catalogue:
    kinds: dict[str, Kind]
    rules: Rules


@functools.cache
def catalogue() -> Catalogue:
    data = tomllib.loads(resources.files("gateway.typed").joinpath("kinds.toml").read_text("utf-8"))
    rules = data["rules"]
    kinds = {
        name: Kind(
            name=name,
            group=entry["group"],
            summary=entry["summary"],
            use_when=entry["use_when"],
            do_not_use=entry["do_not_use"],
            tests=entry["tests"],
            stop_and_ask=entry["stop_and_ask"],
            reject_provenance=frozenset(entry.get("reject_provenance", ())),
            warn_provenance=frozenset(entry.get("warn_provenance", ())),
            requires_test_files=bool(entry.get("requires_test_files", False)),
            expected_files=tuple(entry.get("expected_files", ())),
        )
        for name, entry in data["kinds"].items()
    }
    return Catalogue(
        kinds=kinds,
        rules=Rules(
            provenances=tuple(rules["provenances"]),
            execution_states=tuple(rules["execution_states"]),
            targets=tuple(rules["targets"]),
            reject_provenance_on_test_target=frozenset(rules["reject_provenance_on_test_target"]),
            warn_provenance_on_test_target=frozenset(rules["warn_provenance_on_test_target"]),
            artifact_reference=re.compile(rules["artifact_reference"]),
            warn_execution_states_for_implementation=frozenset(rules["warn_execution_states_for_implementation"]),
            always_protected=tuple(rules["always_protected"]),
            grant_ttl_seconds=int(rules["grant_ttl_seconds"]),
        ),
    )
