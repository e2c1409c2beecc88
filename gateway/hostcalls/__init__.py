"""A host's tool call judged on an engine: `pre(engine, call)` before the host runs it (let it
run, refuse it, or run the verified route instead), `post(engine, call)` after (what a routed
write did, what a shell command changed). Host adapters (`gateway.surfaces.hooks`) translate
each host's payloads into `HookCall`s and `Answer`s back into its replies."""

from gateway.hostcalls.call import PASS, Answer, Edit, HookCall, checked_text
from gateway.hostcalls.judge import post, pre
from gateway.hostcalls.routes import warm

__all__ = ["PASS", "Answer", "Edit", "HookCall", "checked_text", "post", "pre", "warm"]
