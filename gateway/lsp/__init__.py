"""Language servers: discovery, one session per (workspace, server), per-server adapters."""
