"""Names a module exports but imports only when one is first read (a module `__getattr__`).

A command pays for what it imports: a read command must not import the MCP server, the model
client, the import path or the containment models because a package names them. The package's
public names (`blastshield_core`), the result models defined on first use (`results`) and the
dashboard's facade (`interfaces.service`) therefore each keep a table of name -> module and let
this helper import a name's module when the name is first read, then keep the value in the
module's namespace, so later reads are plain attribute look-ups.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any], table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the module whose globals are `namespace`: each name of
    `table` is read from its module (absolute, or relative to the module's package: `.core`,
    `..base.access`) the first time it is asked for, and kept in `namespace`. Any other name is
    an `AttributeError`, as for a plain module.

        __getattr__, __dir__ = lazy_exports(globals(), {"Store": ".graph.store"})
    """
    module_name = namespace["__name__"]
    package = namespace.get("__package__") or module_name.rpartition(".")[0]

    def __getattr__(name: str) -> Any:
        source = table.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
