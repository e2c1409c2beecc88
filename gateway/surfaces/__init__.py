"""The surfaces: the `gateway` command, JSON-RPC (`serve`), MCP, the workspace daemon and its
client, and the agent hosts' hooks. Each only translates requests into engine calls and
results back: `operations` is the table they are generated from, `render` the one place where
a result, an error or a suggested operation becomes a surface's text. Nothing below imports
this package."""
