"""A repository that would run its code in a Python language server that let it: for
`benchmarks/python_servers.py`'s safety check."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.lsp_probe import Probe, ProbeError

# Where a Python server could be made to run a repository's code: its interpreters (a venv
# found beside the code or named by a config), modules a Python started in it imports first
# (`sitecustomize`, `json` for an interpreter query run there), mypy plugins, a build system
# pyrefly runs to list sources. Each leaves a marker if it runs.
HOSTILE_CONFIGS = {
    "mypy.ini": "[mypy]\nplugins = evil_plugin\npython_executable = evil/bin/python\n",
    "pyproject.toml": ('[tool.mypy]\nplugins = ["evil_plugin"]\npython_executable = "evil/bin/python"\n'
                       '[tool.zuban]\nplugins = ["evil_plugin"]\npython_executable = "evil/bin/python"\n'
                       '[tool.ty.environment]\npython = "evil"\n'),
    "pyrefly.toml": ('python-interpreter-path = "evil/bin/python"\n'
                     '[build-system]\ntype = "custom"\ncommand = ["evil/bin/build"]\n'),
    "ty.toml": '[environment]\npython = "evil"\n',
}


def hostile(root: Path, markers: Path) -> Path:
    """A repository that writes a marker into `markers` for each way it could be run."""
    root.mkdir(parents=True)
    (root / "shapes.py").write_text("import json\n\n\ndef area(w, h):\n    return w * h\n\n\nclass Shape:\n    pass\n")
    for venv in (".venv", "venv", "evil"):
        for program in ("python", "python3", "build"):
            script = root / venv / "bin" / program
            script.parent.mkdir(parents=True, exist_ok=True)
            script.write_text(f"#!/bin/sh\necho ran >> {markers / (venv + '-' + program)}\nexit 1\n")
            script.chmod(0o755)
        (root / venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    for module in ("sitecustomize", "usercustomize", "json", "evil_plugin"):
        (root / f"{module}.py").write_text(f"open({str(markers / module)!r}, 'a').write('ran')\n")
    for name, text in HOSTILE_CONFIGS.items():
        (root / name).write_text(text)
    return root


def safety_check(program: list[str], env: dict[str, str]) -> str:
    """Open a hostile repository as the gateway would (no workspace entry on PATH, no
    VIRTUAL_ENV): symbols and diagnostics asked, then whether anything of it ran."""
    base = Path(tempfile.mkdtemp(prefix="pyservers-hostile-"))
    markers = base / "markers"
    markers.mkdir()
    root = hostile(base / "repo", markers)
    probe = Probe(program, root, env)
    try:
        probe.start()
        probe.open(root / "shapes.py")
        reply = probe.request("textDocument/documentSymbol", {"textDocument": {"uri": (root / "shapes.py").as_uri()}})
        answered = {item.get("name") for item in reply or []}
        probe.diagnostics(root / "shapes.py", timeout=10)
        time.sleep(2)
    except ProbeError as error:
        return f"did not answer: {error}"
    finally:
        probe.stop()
    ran = sorted(marker.name for marker in markers.iterdir())
    shutil.rmtree(base, ignore_errors=True)
    if ran:
        return "ran " + ", ".join(ran)
    return "ok" if answered >= {"area", "Shape"} else f"no symbols: {answered}"
