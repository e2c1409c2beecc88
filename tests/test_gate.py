"""The gate's decisions on every language's sample edits, and what it finds there."""

from __future__ import annotations

import pytest

from gateway.gate.checker import classify_edit
from gateway.langs import default_registry
from gateway.surfaces import render
from gateway.syntax import find_definitions
from tests.gate_cases import SAMPLES, Case, Sample, commands

CASES = [(lang, case) for lang, sample in SAMPLES.items() for case in sample.cases]


def test_every_language_with_a_backend_has_a_sample() -> None:
    backed = {name for name, lang in default_registry().languages.items() if lang.symbol_backend}
    assert backed == set(SAMPLES)


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_definitions_found(lang: str) -> None:
    sample = SAMPLES[lang]
    found = {(d.kind, d.name_path) for d in find_definitions(default_registry().get(lang), sample.source.encode())}
    missing = set(sample.definitions) - found
    assert not missing, f"not found: {sorted(missing)}; found: {sorted(found)}"


@pytest.mark.parametrize(("lang", "case"), CASES, ids=[f"{lang}-{case.id}" for lang, case in CASES])
def test_gate_decision(lang: str, case: Case) -> None:
    sample: Sample = SAMPLES[lang]
    assert sample.source.count(case.old) == 1, "the case's old text must occur once in the sample"
    result = classify_edit(sample.filename, case.old, case.new, content=sample.source)
    assert result.language == lang
    assert (result.decision, result.suggested_tool) == (case.decision, case.tool), result.message
    reported = {d.name_path for d in result.definitions}
    assert set(case.names) <= reported, f"expected {case.names} among {sorted(reported)}"
    if result.blocked:
        assert commands(result), "a refusal names the command to run instead"
        assert all(command.split()[1].replace("_", "-") in command for command in commands(result))
        assert result.suggested_tool and result.suggested_tool in result.message
        assert "\u27e6" not in result.message and all(str(s) in result.message for s in result.suggested)  # values, not markers
        for command in commands(result):
            assert command in render.hook_text(result.message, result.suggested)
    else:
        assert result.definitions == () and result.suggested == ()
