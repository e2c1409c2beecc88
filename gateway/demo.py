"""`make demo`: an agent's structural edit routed by the hook into the host's own edit, a broken one refused,
the CLI, MCP and a body edit, a typed edit and a contract; each edit printed as it is sent."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

SAMPLE = '''import functools


class PriceList:
    """Prices in cents; `def` and `class` in this docstring are just words."""

    def __init__(self, prices):
        self.prices = dict(prices)

    @functools.cache
    def total(self, *items):
        return sum(self.prices[item] for item in items)
'''

STRUCTURAL_OLD = "    @functools.cache\n    def total(self, *items):\n        return sum(self.prices[item] for item in items)"
STRUCTURAL_NEW = "    @functools.cache\n    def total(self, *items, discount=0):\n        return sum(self.prices[item] for item in items) - discount"
NEW_TOTAL = "def total(self, *items, discount=0):\n    return sum(self.prices[item] for item in items) - discount"
STRUCTURAL_AGAIN = STRUCTURAL_NEW
STRUCTURAL_OLD_BODY = "    @functools.cache\n    def total(self, *items, discount=0, floor=0):\n        return max(floor, sum(self.prices[item] for item in items) - discount)"
BODY_ONLY_OLD = "        self.prices = dict(prices)\n"
BODY_ONLY_NEW = BODY_ONLY_OLD + "        self.currency = 'EUR'\n"


def _show(label: str, text: str) -> None:
    print(f"  {label}:")
    print("\n".join(f"    | {line}" for line in text.split("\n")))


def _run(workspace: Path, *args: str, stdin: str | None = None) -> int:
    """Run `gateway ARGS`; multi-line arguments are shown below the command, in full."""
    shown, blocks = [], []
    for index, arg in enumerate(args):
        if "\n" in arg:
            name = args[index - 1].lstrip("-").upper() if index else "ARG"
            shown.append(f"${name}")
            blocks.append((f"${name}", arg))
        else:
            shown.append(shlex.quote(arg))
    print(f"\n$ gateway {' '.join(shown)}" + (" < payload.json" if stdin else ""))
    for label, text in blocks:
        _show(label, text)
    done = subprocess.run([sys.executable, "-m", "gateway", *args], cwd=workspace, capture_output=True, text=True, input=stdin)
    print((done.stdout + done.stderr).rstrip())
    print(f"[exit {done.returncode}]")
    return done.returncode


def _mcp_replace(workspace: Path) -> dict[str, object]:
    """The refused edit done the way the refusal says, by an MCP client (the SDK's own)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import TextContent

    async def call() -> dict[str, object]:
        server = StdioServerParameters(command=sys.executable, args=["-m", "gateway", "mcp", "--workspace", str(workspace)], env=dict(os.environ))
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("replace_symbol", {"name_path": "PriceList/total", "path": "prices.py", "body": NEW_TOTAL})
            first = result.content[0] if result.content else None
            return dict(json.loads(first.text)) if isinstance(first, TextContent) else {}

    return anyio.run(call)


def _hook(workspace: Path, old: str, new: str, event: str = "PreToolUse") -> dict[str, object]:
    payload = json.dumps({"hook_event_name": event, "tool_name": "Edit", "cwd": str(workspace), "permission_mode": "acceptEdits",
                          "tool_input": {"file_path": str(workspace / "prices.py"), "old_string": old, "new_string": new}})
    print(f"\n$ gateway hook claude-code < payload.json   # {event} of an Edit of prices.py:")
    if event == "PreToolUse":
        _show("old_string", old)
        _show("new_string", new)
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], cwd=workspace, capture_output=True, text=True, input=payload)
    answer = json.loads(done.stdout or "{}").get("hookSpecificOutput", {})
    print(json.dumps(answer, indent=2))
    print(f"[exit {done.returncode}]")
    return dict(answer)


def _gate_and_routing(workspace: Path) -> bool:
    prices = workspace / "prices.py"
    print("1. Claude Code is about to change a decorated method's signature with its Edit tool. The PreToolUse hook")
    print("   plans it as replace_symbol, checks the result, and hands it back as the host's own Edit (updatedInput),")
    print("   leaving the permission decision to the host and the user's rules:")
    routed_answer = _hook(workspace, STRUCTURAL_OLD, STRUCTURAL_NEW)
    updated = routed_answer.get("updatedInput", {})
    text = prices.read_text()
    if isinstance(updated, dict) and text.count(str(updated.get("old_string"))) == 1:
        prices.write_text(text.replace(str(updated["old_string"]), str(updated["new_string"])))  # what the host does
    print("\n   Once the host has written it, PostToolUse tells the agent what was done (only if the file holds it):")
    performed = _hook(workspace, STRUCTURAL_OLD, STRUCTURAL_NEW, "PostToolUse")
    print("\n2. An edit whose result would not parse is refused, and the reason says why:")
    refused = _hook(workspace, STRUCTURAL_NEW, "    @functools.cache\n    def total(self, *items, discount=0:\n        return (")
    print("\n3. The CLI refuses a structural edit (exit 3) unless asked to route it (--route):")
    blocked = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_AGAIN, "--new", STRUCTURAL_OLD_BODY)
    routed = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_AGAIN, "--new", STRUCTURAL_OLD_BODY, "--route")
    print("\n4. An MCP client replaces the method by name; the range comes from the language server:")
    _show("body", NEW_TOTAL)
    result = _mcp_replace(workspace)
    print(f"replace_symbol via {result.get('backend')}:\n{str(result.get('diff', '')).rstrip()}")
    print("\n5. An edit inside a body touches no definition and goes through as text:")
    applied = _run(workspace, "edit", "prices.py", "--old", BODY_ONLY_OLD, "--new", BODY_ONLY_NEW)
    ok = "updatedInput" in routed_answer and "replace_symbol" in str(performed.get("additionalContext"))
    ok = ok and refused.get("permissionDecision") == "deny"
    return ok and (blocked, routed, applied) == (3, 0, 0) and result.get("ok") is True


def _typed_edit(workspace: Path) -> bool:
    config = workspace / ".gateway" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("[typed_edits]\nenforce = true\n")
    print("\n6. Typed edits ([typed_edits] enforce = true): a write needs a declaration of what kind of change it is.")
    refused = _run(workspace, "edit", "prices.py", "--old", "EUR", "--new", "USD")
    declare = ["declare", "edit_cosmetic", "--file", "prices.py", "--target", "prod", "--provenance", "user_confirmed",
               "--rationale", "the shop prices in dollars (asked by the user)", "--json"]
    print(f"\n$ gateway {' '.join(shlex.quote(a) for a in declare)}")
    done = subprocess.run([sys.executable, "-m", "gateway", *declare], cwd=workspace, capture_output=True, text=True)
    grant = json.loads(done.stdout or "{}")
    print(json.dumps({k: grant.get(k) for k in ("edit_id", "token", "expires_at", "audit_warnings")}, indent=2))
    applied = _run(workspace, "edit", "prices.py", "--old", "EUR", "--new", "USD", "--token", str(grant.get("token")))
    config.unlink()
    return (refused, done.returncode, applied) == (3, 0, 0)


CONTRACT = """[contract]
id = "count-items"
summary = "Add PriceList.count and check it"

[[files]]
path = "prices.py"

[[steps]]
id = "count"
file = "prices.py"
action = "insert_code"
symbol = "PriceList/total"
position = "after"
text = "def count(self):\\n    return len(self.prices)"

[[validate]]
run = "{python} -c 'import prices; assert prices.PriceList({{\\"a\\": 1}}).count() == 1'"
timeout = 60
"""


def _contract(workspace: Path) -> bool:
    plan = workspace / "contracts" / "count-items.toml"
    plan.parent.mkdir()
    plan.write_text(CONTRACT.format(python=shlex.quote(sys.executable)))
    print(f"\n7. A contract: a reviewed plan, applied all or nothing and validated ({plan.relative_to(workspace)}):\n")
    print(plan.read_text().rstrip())
    checked = _run(workspace, "contract", "check", "contracts/count-items.toml")
    applied = _run(workspace, "contract", "apply", "contracts/count-items.toml")
    return (checked, applied) == (0, 0)


NEXT_STEPS = """
What to try next:
  gateway hook install claude-code --workspace YOUR_PROJECT   # the hook and MCP server (or copilot, gemini, codex, opencode)
  gateway servers                                             # which language servers run here, per language
  .venv/bin/python benchmarks/replay.py --repo YOUR_PROJECT --commits 50   # the gate on your own history
"""


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gateway-demo-") as directory:
        workspace = Path(directory)
        (workspace / "prices.py").write_text(SAMPLE)
        print(f"Sample workspace {workspace} with prices.py:\n\n{SAMPLE}")
        try:
            ok = _gate_and_routing(workspace) and _typed_edit(workspace) and _contract(workspace)
        finally:  # the CLI started the workspace's daemon; the workspace is about to go
            subprocess.run([sys.executable, "-m", "gateway", "daemon", "stop", "--workspace", str(workspace)], capture_output=True)
        print(f"\nprices.py now:\n\n{(workspace / 'prices.py').read_text()}")
        if not ok:
            sys.exit("demo: the gateway did not behave as shown above")
        print(NEXT_STEPS)


if __name__ == "__main__":
    main()
