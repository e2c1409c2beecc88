"""Shared set-up: the gateway's per-user state (signing key, server tokens) lives in a
directory of this test session, never in the developer's home."""

from __future__ import annotations

import os
import tempfile

os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="gateway-user-state-")
# Surfaces start a workspace daemon by default; tests opt in (tests/test_daemon.py) instead of
# leaving one behind per temporary workspace.
os.environ["GATEWAY_NO_DAEMON"] = "1"
