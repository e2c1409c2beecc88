"""gopls names methods after their receiver: `(*Rect).Area` or `Rect.Area` is Rect/Area."""

from __future__ import annotations

import re

from gateway.lsp.adapters.base import Adapter

_METHOD = re.compile(r"^\(?\*?(?P<receiver>[A-Za-z_][\w]*)(?:\[[^\]]*\])?\)?\.(?P<name>\w+)$")


class GoplsAdapter(Adapter):
    def name_segments(self, name: str) -> list[str]:
        match = _METHOD.match(name)
        return [match.group("receiver"), match.group("name")] if match else [name]


ADAPTER = GoplsAdapter()
