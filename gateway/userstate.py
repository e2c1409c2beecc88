"""The user's own state, outside every workspace: the signing key and the servers' tokens.

`$XDG_STATE_HOME/gateway` (default `~/.local/state/gateway`), a 0700 directory. The key
signs grants, contract journals and shell snapshots kept inside workspaces, so that an entry
written by hand (by an agent's Write, or shipped in a cloned repository) is refused as forged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from gateway.callerenv import state_base
from gateway.statcache import StatCache
from gateway.errors import Forged

KEY_NAME = "key"
KEY_BYTES = 32


def _state_path() -> Path:
    return Path(state_base()) / "gateway"


def state_home() -> Path:
    """The gateway's per-user state directory, made private (0700) on first use."""
    directory = _state_path()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    if directory.stat().st_mode & 0o077:
        directory.chmod(0o700)
    return directory


def private_file(path: Path, data: bytes, durable: bool = True) -> None:
    """Write `data` to a new 0600 file that nobody else could have opened first; `durable`:
    on disk before it replaces the old one (a note that may be lost in a crash skips the fsync)."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


def user_key() -> bytes:
    """The per-user signing key, made on first use; read again only when its file changed (a key
    removed or replaced while a daemon runs is not signed with from memory)."""
    path = _state_path() / KEY_NAME
    try:
        seen = os.stat(path)
        stamp = (seen.st_ino, seen.st_mtime_ns, seen.st_size)
    except OSError:
        stamp = None
    cached = _keys.get(path)
    if cached is not None and stamp is not None and cached[0] == stamp:
        return cached[1]
    key = _key_at(path)
    seen = os.stat(path)
    _keys[path] = ((seen.st_ino, seen.st_mtime_ns, seen.st_size), key)
    return key


_keys: dict[Path, tuple[tuple[int, int, int], bytes]] = {}
signed_records: StatCache[dict[str, Any]] = StatCache()
"""Signed records this process read (their signature checked) or wrote, by file: valid while
the file and the key are unchanged. Callers do not change them."""


def _key_at(path: Path) -> bytes:
    state_home()
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    if len(key) != KEY_BYTES:
        candidate = secrets.token_bytes(KEY_BYTES)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:  # another process made it, or it is damaged: replace only a damaged one
            if len(path.read_bytes()) == KEY_BYTES:
                return path.read_bytes()
            private_file(path, candidate)
            return candidate
        with os.fdopen(fd, "wb") as handle:
            handle.write(candidate)
        key = candidate
    return key


def key_file_id() -> str | None:
    """A short fingerprint of the signing key as its file is now (read afresh, not the key this
    process has in memory); None when the file is missing or damaged."""
    try:
        key = (_state_path() / KEY_NAME).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(key).hexdigest()[:16] if len(key) == KEY_BYTES else None


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def sign(record: dict[str, Any], purpose: str) -> dict[str, Any]:
    """`record` with an `hmac` field over its other fields and what it is for."""
    body = {k: v for k, v in record.items() if k != "hmac"}
    mac = hmac.new(user_key(), purpose.encode() + b"\0" + _canonical(body), hashlib.sha256).hexdigest()
    return {**body, "hmac": mac}


def canonical(value: Any) -> bytes:
    """The JSON form a signature covers."""
    return _canonical(value)


def signed_canonical(body: bytes, purpose: str) -> str:
    """The JSON text of a signed record whose other fields are `body` (their canonical JSON
    object): `body` with its `hmac` field added, serialized once."""
    mac = hmac.new(user_key(), purpose.encode() + b"\0" + body, hashlib.sha256).hexdigest()
    return body[:-1].decode() + ("," if len(body) > 2 else "") + f'"hmac":"{mac}"}}'


def signed_json(record: dict[str, Any], purpose: str, serialized: dict[str, bytes] | None = None) -> str:
    """The JSON text of `sign(record, purpose)`, each value serialized once; `serialized`: fields
    given already as their canonical JSON (a large value two records share), in place of theirs."""
    markers = {name: f"\0serialized {name}\0" for name in serialized or {}}
    body = _canonical({**{k: v for k, v in record.items() if k != "hmac"}, **markers})
    for name, marker in markers.items():
        body = body.replace(json.dumps(marker).encode(), (serialized or {})[name], 1)
    return signed_canonical(body, purpose)


def verified(record: Any, purpose: str, where: str) -> dict[str, Any]:
    """`record` without its `hmac`, if the user's key signed it for `purpose`; else Forged."""
    if not isinstance(record, dict) or not isinstance(record.get("hmac"), str):
        raise Forged(f"{where}: unsigned entry refused (forged)")
    expected = sign(record, purpose)["hmac"]
    if not hmac.compare_digest(expected, record["hmac"]):
        raise Forged(f"{where}: the signature does not match (forged or altered)")
    return {k: v for k, v in record.items() if k != "hmac"}
