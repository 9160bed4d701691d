"""Every name the package, the result models and the service facade load on first use resolves:
a module moved or a name renamed fails here rather than on a page or a command at run time."""

from __future__ import annotations

import importlib

import pytest

FACADES = ["blastshield_core", "blastshield_core.results", "blastshield_core.interfaces.service"]


def _lazy_names(facade: str) -> list[str]:
    module = importlib.import_module(facade)
    tables = [getattr(module, table, {}) for table in ("_LATER", "_PAGE_NAMES", "_LAZY")]
    return sorted({*getattr(module, "__all__", []), *(name for table in tables for name in table)})


@pytest.mark.parametrize("facade", FACADES)
def test_every_lazy_name_resolves(facade):
    module = importlib.import_module(facade)
    names = _lazy_names(facade)
    assert names, f"{facade} names nothing to load"
    missing = []
    for name in names:
        try:
            getattr(module, name)
        except (AttributeError, ImportError) as exc:
            missing.append(f"{name}: {exc}")
    assert missing == []


def test_an_unknown_name_is_an_attribute_error():
    service = importlib.import_module("blastshield_core.interfaces.service")
    with pytest.raises(AttributeError):
        _ = service.no_such_name_here
