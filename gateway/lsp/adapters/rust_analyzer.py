"""rust-analyzer: on the user's toolchain, running nothing of the workspace.

- The `rust-analyzer`, `cargo` and `rustc` on PATH are usually rustup's proxies, which run the
  toolchain a `rust-toolchain.toml` names, a `path = ...` inside the repository included:
  they are pinned to the toolchain rustup calls active outside any workspace
  ($RUSTUP_TOOLCHAIN; an unknown name when there is none, so that nothing runs), and rustup
  installs nothing.
- cargo, which it runs for the workspace's metadata, takes `build.rustc`, `rustc-wrapper` and
  `rustc-workspace-wrapper` from the workspace's `.cargo/config.toml`; the environment, which
  cargo reads first, names the rustc on PATH and no wrapper.
- Build scripts, proc-macros and `cargo check` (all the workspace's code) are off.
- It names impl blocks `impl Point` or `impl Display for Point`: both are Point.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from typing import Any

from gateway.lsp.adapters.base import Adapter
from gateway.lsp.confine import OUTSIDE, version_env

_IMPL = re.compile(r"^impl(?:<[^>]*>)?\s+(?:.+?\s+for\s+)?(?P<type>[\w:]+)")
NO_TOOLCHAIN = "gateway-no-default-toolchain"  # a name rustup cannot install: its proxies refuse to run


@cache
def user_toolchain(path: str) -> str | None:
    """The toolchain rustup (found on `path`) calls active outside any workspace: the user's
    default or $RUSTUP_TOOLCHAIN; NO_TOOLCHAIN when it names none; None without rustup."""
    rustup = shutil.which("rustup", path=path)
    if rustup is None:
        return None
    try:
        done = subprocess.run([rustup, "show", "active-toolchain"], capture_output=True, text=True, timeout=15, cwd=OUTSIDE,
                              env=version_env(path, {"RUSTUP_AUTO_INSTALL": "0"}), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return NO_TOOLCHAIN
    words = done.stdout.split()
    return words[0] if done.returncode == 0 and words else NO_TOOLCHAIN


class RustAnalyzerAdapter(Adapter):
    path_programs = ("cargo", "rustc")

    def pins(self, path: str) -> dict[str, str]:
        pinned = {"RUSTC_WRAPPER": "", "RUSTC_WORKSPACE_WRAPPER": "", "RUSTUP_AUTO_INSTALL": "0"}
        toolchain, rustc = user_toolchain(path), shutil.which("rustc", path=path)
        if toolchain is not None:
            pinned["RUSTUP_TOOLCHAIN"] = toolchain
        if rustc is not None:
            pinned["RUSTC"] = rustc
        return pinned

    def initialization_options(self, program: str) -> dict[str, Any]:
        return {"cargo": {"buildScripts": {"enable": False}}, "procMacro": {"enable": False}, "checkOnSave": False}

    def name_segments(self, name: str) -> list[str]:
        match = _IMPL.match(name)
        return [match.group("type").split("::")[-1]] if match else [name]


ADAPTER = RustAnalyzerAdapter()
