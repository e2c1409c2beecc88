"""`make demo`: an agent's structural edit routed by the hook into the host's own edit, a broken one refused,
and the CLI, MCP and a body edit doing the rest."""

from __future__ import annotations

import json
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


def _run(workspace: Path, *args: str, stdin: str | None = None) -> int:
    shown = " ".join(shlex.quote(arg) if "\n" not in arg else "'...'" for arg in args)
    print(f"\n$ gateway {shown}" + (" < payload.json" if stdin else ""))
    done = subprocess.run([sys.executable, "-m", "gateway", *args], cwd=workspace, capture_output=True, text=True, input=stdin)
    print((done.stdout + done.stderr).rstrip())
    print(f"[exit {done.returncode}]")
    return done.returncode


def _mcp_replace(workspace: Path) -> dict[str, object]:
    """The refused edit done the way the refusal says, by an MCP client (the SDK's own)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def call() -> dict[str, object]:
        server = StdioServerParameters(command=sys.executable, args=["-m", "gateway", "mcp", "--workspace", str(workspace)])
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("replace_symbol", {"name_path": "PriceList/total", "path": "prices.py", "body": NEW_TOTAL})
            return dict(result.structured_content or {})

    return anyio.run(call)


def _hook(workspace: Path, old: str, new: str) -> dict[str, object]:
    payload = json.dumps({"tool_name": "Edit", "cwd": str(workspace), "permission_mode": "acceptEdits", "tool_input": {
        "file_path": str(workspace / "prices.py"), "old_string": old, "new_string": new}})
    print("\n$ gateway hook claude-code < payload.json")
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], cwd=workspace, capture_output=True, text=True, input=payload)
    answer = json.loads(done.stdout or "{}").get("hookSpecificOutput", {})
    print(json.dumps(answer, indent=2))
    print(f"[exit {done.returncode}]")
    return dict(answer)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gateway-demo-") as directory:
        workspace = Path(directory)
        prices = workspace / "prices.py"
        prices.write_text(SAMPLE)
        print(f"Sample workspace {workspace} with prices.py:\n\n{SAMPLE}")
        print("1. Claude Code is about to change a decorated method's signature with its Edit tool. The PreToolUse hook")
        print("   performs it as replace_symbol, checks the result, and hands it back as the host's own Edit (updatedInput):")
        routed_answer = _hook(workspace, STRUCTURAL_OLD, STRUCTURAL_NEW)
        updated = routed_answer.get("updatedInput", {})
        text = prices.read_text()
        if isinstance(updated, dict) and text.count(str(updated.get("old_string"))) == 1:
            prices.write_text(text.replace(str(updated["old_string"]), str(updated["new_string"])))  # what the host does
        print("\n2. An edit whose result would not parse is refused, and the reason says why:")
        refused = _hook(workspace, STRUCTURAL_NEW, "    @functools.cache\n    def total(self, *items, discount=0:\n        return (")
        print("\n3. The CLI refuses a structural edit (exit 3) unless asked to route it (--route):")
        blocked = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_AGAIN, "--new", STRUCTURAL_OLD_BODY)
        routed = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_AGAIN, "--new", STRUCTURAL_OLD_BODY, "--route")
        print("\n4. An MCP client replaces the method by name; the range comes from the language server:")
        result = _mcp_replace(workspace)
        print(f"replace_symbol via {result.get('backend')}:\n{str(result.get('diff', '')).rstrip()}")
        print("\n5. An edit inside a body touches no definition and goes through as text:")
        applied = _run(workspace, "edit", "prices.py", "--old", BODY_ONLY_OLD, "--new", BODY_ONLY_NEW)
        print(f"\nprices.py now:\n\n{prices.read_text()}")
        ok = routed_answer.get("permissionDecision") == "allow" and refused.get("permissionDecision") == "deny"
        if (blocked, routed, applied) != (3, 0, 0) or not ok or result.get("ok") is not True:
            sys.exit("demo: the gateway did not behave as shown above")


if __name__ == "__main__":
    main()
