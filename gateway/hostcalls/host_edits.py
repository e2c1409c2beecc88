"""How each host applies an edit tool's replacements, which the hook must reproduce exactly:
the text the gate judges is the one the host will write, and a routed write goes back as an
edit whose application by the host gives the verified result byte for byte."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gateway.hostcalls.call import Edit

if TYPE_CHECKING:
    from gateway.symbols.routing import Route


def host_edits(text: str, edits: tuple[Edit, ...], style: str) -> list[tuple[str, str, bool]]:
    """The replacements the host really makes on `text`: in Claude Code, deleting text that
    ends a line deletes its newline too."""
    made = []
    for edit in edits:
        old = edit.old
        if style == "claude" and edit.new == "" and old and not old.endswith("\n") and old + "\n" in text:
            old += "\n"
        made.append((old, edit.new, edit.replace_all))
        text = text.replace(old, edit.new) if edit.replace_all else text.replace(old, edit.new, 1)
    return made


def kept_last_newline(before: str, after: str) -> str:
    """`after` ending with a newline exactly when `before` did (Gemini CLI's replace)."""
    if before.endswith("\n") and not after.endswith("\n"):
        return after + "\n"
    if not before.endswith("\n") and after.endswith("\n"):
        return after[:-1]
    return after


def replay(text: str, edit: Edit, style: str) -> str:
    old, new, _ = host_edits(text, (edit,), style)[0]
    after = text.replace(old, new, 1)
    return kept_last_newline(text, after) if style == "gemini" else after


def edit_for(before: str, result: str, route: Route, style: str) -> tuple[Edit, str]:
    """One exact replacement whose application by the host turns `before` into `result`, and the
    text that application leaves (`result`, unless the host's whole-file replace differs)."""
    old, new = route.as_edit()
    edit = Edit(old, new)
    if before.count(old) == 1 and replay(before, edit, style) == result:
        return edit, result
    whole = Edit(before, result)  # the whole file: unique, and never an empty deletion
    return whole, replay(before, whole, style)
