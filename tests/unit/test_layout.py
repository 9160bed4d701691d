"""The house rules of `blastshield_core/`: imports run one way between its folders, no module
imports itself back through others (no circle, lazy imports included), no module is over 800
lines, and the pages reach the core only through its facades."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

PACKAGE = ROOT / "blastshield_core"
MAX_LINES = 800

# Each folder and the folders it may import (docs/internals.md, "Layout"). The package's own `__init__`
# and `__main__` sit above every folder.
ALLOWED = {
    "base": set(),
    "results": {"base"},
    "graph": {"base", "results"},
    "read": {"base", "results", "graph"},
    "sources": {"base", "results", "graph"},
    "respond": {"base", "results", "graph", "read"},
    "brief": {"base", "results", "graph", "read"},
    "interfaces": {"base", "results", "graph", "read", "sources", "respond", "brief"},
}
# What the pages may import from the core: `interfaces` alone, through its service facade (which
# loads what a page shows on first use: result states, errors, roles, imports, ...).
PAGE_IMPORTS = {"blastshield_core.interfaces.service"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in a file, at any depth (lazy and typing-only too)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            # `from package import module` imports that module too
            for alias in node.names:
                candidate = f"{module}.{alias.name}"
                if _file_of(candidate) is not None:
                    found.append((node.lineno, candidate))
    return found


def _file_of(module: str) -> Path | None:
    if not module.startswith("blastshield_core"):
        return None
    path = ROOT.joinpath(*module.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def _folder(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else None


def _core_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_sits_in_a_folder_of_the_layout():
    """Only the package's `__init__` and `__main__` sit at the top; every folder is one the rules know."""
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert loose == [], f"modules outside the layout's folders: {loose}"
    folders = {p.relative_to(PACKAGE).parts[0] for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE}
    assert folders == set(ALLOWED), f"folders the layout rules do not name: {sorted(folders - set(ALLOWED))}"


def _page_files() -> list[Path]:
    return [*sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]


@pytest.mark.parametrize("path", [*_core_files(), *_page_files()], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_800_lines(path):
    """Every module of the package, and every page of the dashboard."""
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


def test_imports_run_one_way_between_folders():
    """`graph` imports none of read, respond, brief, sources or interfaces; `read` none of respond,
    brief or interfaces; and so on, as ALLOWED says (every import counts, lazy ones included)."""
    offenders = []
    for path in _core_files():
        own = _folder(_module_name(path))
        if own is None:
            continue  # the package's __init__ and __main__
        for line, module in _imports(path):
            other = _folder(module) if module.startswith("blastshield_core.") else None
            if other is not None and other != own and other not in ALLOWED[own]:
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module} ({own} -> {other})")
    assert offenders == []


def test_no_import_circle():
    """No module reaches itself through the modules it imports (lazy and typing-only imports count)."""
    edges: dict[str, set[str]] = {}
    for path in _core_files():
        name = _module_name(path)
        targets = {m for _, m in _imports(path) if _file_of(m) is not None}
        edges[name] = {m for m in targets if m != name and not name.startswith(m + ".")}
    circles = _circles(edges)
    assert circles == [], "import circles: " + "; ".join(circles)


def _circles(edges: dict[str, set[str]]) -> list[str]:
    circles: list[str] = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return circles


def test_the_rules_can_fail():
    """The helpers behind the checks see relative and lazy imports, name folders, and find a circle."""
    graph_file = PACKAGE / "graph" / "store.py"
    found = dict((m, line) for line, m in _imports(graph_file))
    assert "blastshield_core.base.settings" in found  # relative imports resolve to absolute names
    lazy = [m for _, m in _imports(PACKAGE / "interfaces" / "cli_commands.py") if m == "blastshield_core.respond.loop"]
    assert lazy, "a lazy import inside a function is seen"
    assert _folder("blastshield_core.read.tools") == "read" and _folder("blastshield_core") is None
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a -> b -> c -> a"]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_pages_import_the_core_only_through_interfaces():
    """A page (and app.py) imports nothing of the core but `interfaces`' service facade: not the
    package's public names, not `results`, not any other folder."""
    offenders = []
    for path in _page_files():
        for node in ast.walk(ast.parse(path.read_text())):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            for module in modules:
                if module.split(".")[0] == "blastshield_core" and module not in PAGE_IMPORTS:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {module}")
    assert offenders == []


# Rooms inside a folder: (the room, the rooms of the same folder it must not import, why).
INNER_RULES = [
    (
        "blastshield_core.sources.aws.iam",
        ("blastshield_core.sources.aws.build", "blastshield_core.sources.aws.escalation",
         "blastshield_core.sources.aws.collect", "blastshield_core.sources.aws.synthetic"),
        "the evaluator is pure: it answers requests, it does not know how a graph is built or collected",
    ),
    (
        "blastshield_core.sources.aws.collect",
        ("blastshield_core.sources.aws.build", "blastshield_core.sources.aws.escalation",
         "blastshield_core.sources.aws.synthetic"),
        "collection writes files; the importer reads them",
    ),
]  # fmt: skip


def _inner_offenders(rules: list[tuple[str, tuple[str, ...], str]]) -> list[str]:
    offenders = []
    for path in _core_files():
        name = _module_name(path)
        for room, forbidden, why in rules:
            if name != room and not name.startswith(room + "."):
                continue
            for line, module in _imports(path):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module} ({why})")
    return offenders


def test_rooms_inside_sources_aws():
    """`sources/aws/iam/` (the evaluator) imports nothing of the graph build, the escalation edges, the
    collector or the generators; the collector imports none of the importer's rooms."""
    assert _inner_offenders(INNER_RULES) == []


def test_the_inner_rules_can_fail():
    rule = [("blastshield_core.sources.aws.build", ("blastshield_core.sources.aws.iam",), "a test of the check")]
    assert _inner_offenders(rule), "build/ imports the evaluator, so a rule forbidding it must report it"


# The rooms that may talk to AWS: the collector on the read side, the account actions on the write side.
AWS_ROOMS = ("blastshield_core.sources.aws.collect", "blastshield_core.respond.aws")
AWS_LIBRARIES = ("boto3", "botocore")


def _aws_offenders(rooms: tuple[str, ...]) -> list[str]:
    offenders = []
    for path in _core_files():
        name = _module_name(path)
        if any(name == room or name.startswith(room + ".") for room in rooms):
            continue
        for line, module in _imports(path):
            if module.split(".")[0] in AWS_LIBRARIES:
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return offenders


def test_only_the_collector_and_the_account_actions_import_boto3_or_botocore():
    """boto3 and botocore (lazy imports included) only in `sources/aws/collect/` and `respond/aws/`:
    every AWS session, client and error is made or caught there, and nowhere else."""
    assert _aws_offenders(AWS_ROOMS) == []


def test_the_aws_rule_can_fail():
    assert _aws_offenders(("blastshield_core.sources.aws.collect",)), "respond/aws/ imports botocore"


# The rooms of the AWS build whose parts are composed, never inherited: each read step and edge family is a
# class given what it reads (the inventory, the edge sink, the evaluation cache, what earlier steps produced)
# by the build's step table (`build/transform.py`), so no state is shared through a common base.
BUILD_ROOMS = ("blastshield_core.sources.aws.build", "blastshield_core.sources.aws.escalation")


def _inheritance_offenders(rooms: tuple[str, ...]) -> list[str]:
    """Classes of the rooms with more than one base, or a base that is a class of the rooms themselves."""
    files = [
        p for p in _core_files() if any(_module_name(p) == r or _module_name(p).startswith(r + ".") for r in rooms)
    ]
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    own = {n.name for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    offenders = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
            if len(bases) > 1 or any(b in own for b in bases):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} class {node.name}({', '.join(bases)})")
    return offenders


def test_the_builders_parts_are_composed_not_inherited():
    """No class of `sources/aws/build/` or `sources/aws/escalation/` has two bases or extends another class of
    them: the edge families are no mixins sharing the attributes of a common base."""
    assert _inheritance_offenders(BUILD_ROOMS) == []


def test_the_inheritance_rule_can_fail():
    assert _inheritance_offenders(("blastshield_core.read",)), "read/tools.py's ReadTools extends ReachMixin"
