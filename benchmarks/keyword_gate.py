"""A keyword gate for comparison: per-language keyword lists on raw lines. This is the project's
own reimplementation of the idea, not any peer's code (no peer's keyword gate is run here).

A multi-line edit is blocked when a line of old_string or new_string that does not start
with a comment marker contains one of the language's definition keywords.
"""

from __future__ import annotations

import re

KEYWORDS = {
    "rust": ["fn", "async fn", "struct", "impl", "trait", "enum"],
    "python": ["def", "async def", "class"],
    "go": ["func", "struct", "interface"],
    "typescript": ["function", "async function", "class", "interface", "enum"],
    "tsx": ["function", "async function", "class", "interface", "enum"],
    "javascript": ["function", "async function", "class", "interface", "enum"],
    "java": ["class", "interface", "enum"],
    "kotlin": ["fun", "class", "interface", "enum"],
    "c": ["struct", "class", "enum"],
    "cpp": ["struct", "class", "enum"],
    "csharp": ["class", "struct", "interface", "enum"],
    "ruby": ["def", "class"],
    "bash": ["function"],
}

COMMENT_MARKERS = {
    "python": ("#",),
    "ruby": ("#",),
    "bash": ("#",),
}
DEFAULT_COMMENT_MARKERS = ("//", "/*", "*")

_PATTERNS = {
    lang: re.compile(r"\b(?:" + "|".join(re.escape(k).replace(r"\ ", r"\s+") for k in words) + r")\b")
    for lang, words in KEYWORDS.items()
}


def keyword_gate_blocks(language: str, old_string: str, new_string: str) -> bool:
    if "\n" not in old_string.strip("\n") and "\n" not in new_string.strip("\n"):
        return False
    pattern = _PATTERNS[language]
    markers = COMMENT_MARKERS.get(language, DEFAULT_COMMENT_MARKERS)
    for line in (old_string + "\n" + new_string).splitlines():
        stripped = line.lstrip()
        if stripped.startswith(markers):
            continue
        if pattern.search(stripped):
            return True
    return False
