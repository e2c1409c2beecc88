"""Which workspace files a shell command would write behind the gate's back.

The command is parsed with bashlex (shlex where bashlex gives up: `[[`, `case`), then
each simple command is judged by what it is: output redirects and heredocs into files,
in-place editors (`sed -i`, `perl -pi`, `ruby -i`), `tee`, `cp`/`mv`/`install`/`dd`/
`truncate` destinations, `patch`, `git apply|am|restore|checkout --`, interpreter
one-liners that write (`python -c` judged by Python's own parser, `node -e`), and the
commands wrapped by `sudo`, `env`, `xargs`, `find -exec`, `bash -c`, `eval`. A target
that cannot be known before running (a variable, a glob, `{}`) counts as a workspace
file only when it surely lies inside the workspace (a glob under it, `git apply` run in
it); a variable or command substitution is left to the PostToolUse check, which sees what
the command really wrote.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any


UNKNOWN = "<unknown>"
"""A write somewhere under the working directory (`git apply`, `xargs sed -i`): which file, nobody knows."""
VARIABLE = "$<unknowable>"
"""A target no reading can know (a variable, a command substitution): left to the check after the command."""
_OUTPUT_REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
_CONTROL = {";", "&&", "||", "|", "&", "(", ")", "\n", ";;", "|&", "{", "}"}
_WRAPPERS = {"sudo", "nice", "nohup", "time", "command", "exec", "stdbuf", "ionice", "doas", "builtin"}
_WRAPPER_VALUES = {"-u", "-g", "-n", "-c", "-o", "-e", "-i", "-p"}
_QUOTED_DELIMITER = re.compile(r"<<(-?)\s*(['\"])(\w+)\2")
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
_NODE_WRITES = re.compile(
    r"\b(writeFile|appendFile|createWriteStream|rename|unlink|rm|rmdir|copyFile|truncate|cp|mkdir|symlink)(Sync)?\b"
)
# Calls that write whatever they are called on (pathlib's), and calls that write only when the
# module is the one named (`os.replace` writes, `'a-b'.replace` does not).
_PY_WRITE_METHODS = {"write_text", "write_bytes", "touch", "unlink", "symlink_to", "hardlink_to", "rmdir"}
_PY_MODULE_WRITES = {
    "os": {"rename", "replace", "remove", "unlink", "rmdir", "removedirs", "truncate", "system", "makedirs", "mkdir",
           "symlink", "link", "popen", "execv", "execvp", "spawnv"},
    "shutil": {"rmtree", "move", "copy", "copy2", "copyfile", "copytree", "copymode", "copystat"},
    "subprocess": {"run", "call", "check_call", "check_output", "Popen"},
}


@dataclass(frozen=True)
class ShellWrite:
    target: str
    how: str


def _name(word: str) -> str:
    base = os.path.basename(word)
    return re.sub(r"^(python|pypy)[\d.]*$", "python", base)


def _operands(words: list[str], with_values: set[str] = frozenset()) -> list[str]:
    """Arguments that are not options (and not the values of options in `with_values`)."""
    found, skip, ended = [], False, False
    for word in words:
        if skip:
            skip = False
        elif ended or not word.startswith("-") or word == "-":
            found.append(word)
        elif word == "--":
            ended = True
        elif word in with_values:
            skip = True
    return found


def _sed(args: list[str]) -> list[str]:
    in_place = any(a.startswith("--in-place") or (a.startswith("-") and not a.startswith("--") and "i" in a.lstrip("-").split("e")[0].split("f")[0]) for a in args)
    if not in_place:
        return []
    scripted = any(a in ("-e", "-f", "--expression", "--file") or a.startswith(("--expression=", "--file=")) for a in args)
    files = _operands(args, {"-e", "-f", "--expression", "--file", "-l", "--line-length"})
    return files if scripted else files[1:]


def _perl_like(args: list[str]) -> list[str]:
    options = [a for a in args if a.startswith("-") and not a.startswith("--")]
    if not any("i" in a.lstrip("-").split("e")[0] for a in options):
        return []
    files = _operands(args, {"-e", "-E", "-I", "-M", "-m"})
    return files if any(a in ("-e", "-E") or a.endswith("e") for a in options) else files[1:]


def _destination(args: list[str]) -> list[str]:
    for index, arg in enumerate(args):
        if arg in ("-t", "--target-directory") and index + 1 < len(args):
            return [args[index + 1]]
        if arg.startswith("--target-directory="):
            return [arg.split("=", 1)[1]]
    operands = _operands(args, {"-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"})
    return operands[-1:] if len(operands) >= 2 else []


def _git(args: list[str]) -> list[str]:
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in ("-C", "-c") else args[1:]
    if not args:
        return []
    sub, rest = args[0], args[1:]
    if sub == "apply" and not (set(rest) & {"--check", "--stat", "--numstat", "--summary"} and "--apply" not in rest):
        return [UNKNOWN]
    if sub == "restore" and set(rest) & {"--staged", "-S"} and not set(rest) & {"--worktree", "-W"}:
        return []  # the index only
    operands = _operands(rest, {"-b", "-B", "--orphan", "-m", "--message", "-C", "-c"})
    if sub in ("am", "restore", "merge", "rebase", "pull", "cherry-pick", "revert") or (sub == "checkout" and ("--" in rest or len(operands) > 1)):
        return [UNKNOWN]
    if (sub == "stash" and operands[:1] in (["pop"], ["apply"])) or (sub == "reset" and "--hard" in rest) or (sub == "clean" and "-n" not in rest):
        return [UNKNOWN]
    return []


def _tar(args: list[str]) -> list[str]:
    """Where `tar` extracts (its -C directory, else the working directory); nothing when it does not."""
    first = args[0] if args else ""
    if not ((not first.startswith("--") and "x" in first.lstrip("-")) or set(args) & {"-x", "--extract", "--get"}):
        return []
    return [next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-C", "--directory")), ".")]


def _python_code(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [UNKNOWN]
    targets = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        module = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        if name == "open" and module in (None, "io", "builtins", "codecs"):
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and not set(mode.value) & set("wax+"):
                continue
            if mode is None:
                continue
            first = node.args[0] if node.args else None
            targets.append(first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else UNKNOWN)
        elif (isinstance(func, ast.Attribute) and name in _PY_WRITE_METHODS) or name in _PY_MODULE_WRITES.get(module or "", ()):
            targets.append(UNKNOWN)
    return targets


def _interpreter(name: str, args: list[str], stdin: str | None) -> list[str]:
    flag = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print")}[name]
    code = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in flag), None)
    if code is None and stdin is not None and (not _operands(args) or _operands(args)[0] == "-"):
        code = stdin
    if code is None:
        return []
    if name == "python":
        return _python_code(code)
    return [UNKNOWN] if _NODE_WRITES.search(code) else []


def _find(args: list[str]) -> list[str]:
    targets = []
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(index + 1, len(args)) if args[j] in (";", "+")), len(args))
            targets += command_writes(args[index + 1 : end], None)
    return [UNKNOWN if t == "{}" else t for t in targets]


def _after_options(args: list[str], with_values: set[str]) -> list[str]:
    """A wrapped command: what follows the wrapper's own options (and their values)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in with_values else 1
    return args[index:]


def command_writes(words: list[str], stdin: str | None) -> list[str]:
    """The files one simple command (its words, redirects aside) would write."""
    while words and (words[0] in _WRAPPERS or "=" in words[0] and not words[0].startswith("-")):
        wrapper, words = words[0], words[1:]
        while wrapper in _WRAPPERS and words and words[0].startswith("-"):
            words = words[2:] if words[0] in _WRAPPER_VALUES else words[1:]
    if not words:
        return []
    name, args = _name(words[0]), words[1:]
    if name == "env":
        rest = _after_options(args, {"-u", "--unset", "-C", "--chdir", "-S"})
        while rest and "=" in rest[0]:
            rest = rest[1:]
        return command_writes(rest, stdin)
    if name == "timeout":
        return command_writes(_after_options(args, {"-s", "--signal", "-k", "--kill-after"})[1:], stdin)
    if name == "xargs":
        # xargs appends its input to the command: files nobody can know before running.
        return command_writes(_after_options(args, {"-I", "-n", "-P", "-d", "-s", "-E", "-L", "-a"}) + [UNKNOWN], None)
    if name in _SHELLS:
        flag = next((i for i, a in enumerate(args) if a.startswith("-") and not a.startswith("--") and "c" in a), None)
        return shell_writes_raw(args[flag + 1]) if flag is not None and flag + 1 < len(args) else []
    if name == "eval":
        return shell_writes_raw(" ".join(args))
    if name == "sed":
        return _sed(args)
    if name in ("perl", "ruby"):
        return _perl_like(args)
    if name == "tee":
        return _operands(args)
    if name in ("cp", "install"):
        return _destination(args)
    if name == "mv":
        return _operands(args, {"-S", "--suffix", "-t", "--target-directory"}) + _destination(args)
    if name in ("rm", "rmdir", "unlink", "shred"):
        return _operands(args)
    if name == "tar":
        return _tar(args)
    if name in ("curl", "wget"):
        flags = ("-o", "--output") if name == "curl" else ("-O", "--output-document")
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in flags] + [a.split("=", 1)[1] for a in args if a.startswith(f"{flags[1]}=")]
    if name == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if name == "truncate":
        return _operands(args, {"-s", "--size", "-r", "--reference"})
    if name == "patch":
        return [] if "--dry-run" in args else [UNKNOWN]
    if name == "git":
        return _git(args)
    if name in ("python", "node"):
        return _interpreter(name, args, stdin)
    if name == "find":
        return _find(args)
    return []


_WRITERS = {"sed", "perl", "ruby", "tee", "cp", "mv", "install", "dd", "truncate", "patch", "git", "python", "node", "find",
            "xargs", "env", "timeout", "eval", "rm", "rmdir", "unlink", "shred", "tar", "curl", "wget", *_SHELLS, *_WRAPPERS}


def _shell_tokens(command: str) -> list[str]:
    """Words and operators (`>`, `&&`, `|`, ...) as the shell splits them; ValueError on unbalanced quotes."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _may_write(command: str) -> bool:
    """A quick look with shlex: no output redirect and no command that can write means no write at all.

    It spares the hook bashlex's start-up (its parser tables take ~80 ms to build) for
    the commands agents run most: tests, greps, listings.
    """
    try:
        tokens = _shell_tokens(command)
    except ValueError:
        return True
    return any(">" in token or _name(token) in _WRITERS for token in tokens)


def _nodes(node: Any) -> list[Any]:
    import bashlex
    found = [node]
    for value in vars(node).values():
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, bashlex.ast.node):
                found += _nodes(child)
    return found


def _bashlex_writes(command: str) -> list[str]:
    import bashlex

    # bashlex keeps the quotes of a quoted heredoc delimiter and then never finds its end.
    command = _QUOTED_DELIMITER.sub(r"<<\1\3", command)
    targets: list[str] = []
    base: str | None = ""  # where earlier `cd`s moved (None: somewhere unknowable)
    for tree in bashlex.parse(command if command.endswith("\n") else command + "\n"):
        for node in _nodes(tree):
            parts = node.parts if node.kind == "command" else getattr(node, "redirects", None) or []
            found, stdin = [], None
            for part in parts:
                if part.kind != "redirect":
                    continue
                if part.type == "<<" and getattr(part, "heredoc", None) is not None:
                    stdin = part.heredoc.value.rsplit("\n", 1)[0]
                if part.type in _OUTPUT_REDIRECTS and isinstance(part.output, bashlex.ast.node):
                    found.append(part.output.word)
            if node.kind == "command":
                words = [p.word for p in node.parts if p.kind == "word"]
                if words[:1] == ["cd"]:
                    base = _moved(base, words[1] if len(words) > 1 else "~")
                found += command_writes(words, stdin)
            targets += [_rebased(base, t) for t in found]
    return targets


def _moved(base: str | None, directory: str) -> str | None:
    if base is None or any(c in directory for c in "$`") or directory == "-":
        return None
    return os.path.join(base, os.path.expanduser(directory))


def _rebased(base: str | None, target: str) -> str:
    """A target as seen from the directory the command started in."""
    if target == UNKNOWN:
        return UNKNOWN if base == "" else base or VARIABLE
    if os.path.isabs(os.path.expanduser(target)) or base == "":
        return target
    return VARIABLE if base is None else os.path.join(base, target)


def _shlex_writes(command: str) -> list[str]:
    tokens = _shell_tokens(command)
    targets, words = [], []
    for index, token in enumerate(tokens + [";"]):
        if token in _OUTPUT_REDIRECTS:
            follower = tokens[index + 1] if index + 1 < len(tokens) else UNKNOWN
            if not (token == ">&" and follower.isdigit()):
                targets.append(follower)
            continue
        if index and tokens[index - 1] in _OUTPUT_REDIRECTS:
            continue
        if token in _CONTROL or set(token) <= set(";&|()"):
            targets += command_writes(words, None)
            words = []
        elif not (words == [] and token.isdigit() and index + 1 < len(tokens) and tokens[index + 1] in _OUTPUT_REDIRECTS):
            words.append(token)
    return targets


def shell_writes_raw(command: str) -> list[str]:
    """Every write target the command names, as written (relative, unexpanded)."""
    if not _may_write(command):
        return []
    try:
        return _bashlex_writes(command)
    except Exception:  # noqa: BLE001 - bashlex fails in many ways on syntax it lacks ([[, case); shlex decides then
        pass
    try:
        return _shlex_writes(command)
    except ValueError:
        return [UNKNOWN]


def _inside(target: str, cwd: Path, root: Path) -> bool:
    """Whether `target` is surely inside `root`. Unknowable targets are not: the PostToolUse
    check catches whatever they write, so guessing here would only deny harmless commands."""
    if any(c in target for c in "$`") or target.startswith("&"):
        return False
    if target == UNKNOWN:
        return cwd.resolve().is_relative_to(root)
    path = Path(os.path.expanduser(target))
    joined = os.path.normpath(path if path.is_absolute() else cwd / path)
    if joined.startswith("/dev/") or joined == "/dev/null":
        return False
    literal = re.split(r"[*?\[{]", joined, maxsplit=1)[0]  # a glob: the directory it expands in
    return Path(os.path.realpath(literal or "/")).is_relative_to(root)


def workspace_writes(command: str, cwd: Path, root: Path) -> list[str]:
    """The targets inside `root` (or unknowable) that `command`, run in `cwd`, would write."""
    return list(dict.fromkeys(t for t in shell_writes_raw(command) if _inside(t, cwd, root)))
