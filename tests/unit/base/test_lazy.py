"""One lazy-export helper (blastshield_core.base.lazy) behind the package's public names, the result
models defined on first use and the dashboard's facade: a name is imported when first read and kept,
an unknown name is an AttributeError, and every name of the three tables resolves."""

from __future__ import annotations

import importlib
import sys
import types

import pytest

from blastshield_core.base.lazy import lazy_exports


def _module(name: str, package: str | None = None) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__package__ = package if package is not None else name.rpartition(".")[0]
    return module


def test_a_name_is_imported_on_first_read_and_kept(monkeypatch):
    """Relative (to the module's package) and absolute module paths; the value is kept in the
    module's namespace, so its module is not asked again."""
    module = _module("blastshield_core.interfaces.facade_probe")
    table = {"md_text": "..base.safetext", "dumps": "json", "Permission": "blastshield_core.base.access"}
    module.__getattr__, module.__dir__ = lazy_exports(vars(module), table)
    monkeypatch.setitem(sys.modules, module.__name__, module)

    from blastshield_core.base import access, safetext

    assert "md_text" not in vars(module)
    assert module.md_text is safetext.md_text
    assert vars(module)["md_text"] is safetext.md_text  # kept: the next read is a plain look-up
    assert module.dumps is importlib.import_module("json").dumps
    assert module.Permission is access.Permission
    assert set(table) <= set(dir(module))


def test_an_unknown_name_is_an_attribute_error_naming_the_module():
    module = _module("somewhere.facade")
    module.__getattr__, _ = lazy_exports(vars(module), {"x": "json"})
    with pytest.raises(AttributeError, match=r"module 'somewhere\.facade' has no attribute 'nothing'"):
        _ = module.nothing
    assert getattr(module, "nothing", None) is None  # hasattr/getattr with a default work as for any module


def test_a_name_missing_from_its_module_is_an_attribute_error():
    """A table entry naming the wrong module fails when read, never as a silent None."""
    module = _module("somewhere.facade")
    module.__getattr__, _ = lazy_exports(vars(module), {"loads": "os"})
    with pytest.raises(AttributeError, match="loads"):
        _ = module.loads


@pytest.mark.parametrize(
    ("facade", "table"),
    [
        ("blastshield_core", "_EXPORTS"),
        ("blastshield_core.results", "_LATER"),
        ("blastshield_core.interfaces.service", "_PAGE_NAMES"),
    ],
)
def test_every_name_of_the_three_tables_resolves(facade, table):
    """A module moved or renamed breaks its table's names at once, here, not when a page reads one."""
    module = importlib.import_module(facade)
    names = getattr(module, table)
    assert len(names) >= 10
    missing = [name for name in names if getattr(module, name, None) is None]
    assert missing == []
    assert set(names) <= set(dir(module))
