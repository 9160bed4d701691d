"""Drawing evidence with streamlit-agraph: styles by label, critical assets, edge states."""

from __future__ import annotations

import html
import json

from streamlit_agraph import Config, Edge, Node, agraph

LABEL_STYLE = {
    "Identity": ("#4C78A8", "dot"),
    "Session": ("#72B7B2", "diamond"),
    "Workload": ("#F58518", "square"),
    "IAMRole": ("#B279A2", "hexagon"),
    # a triangle, not vis-network's cylinder ("database"), which draws its label inside and grows with it:
    # several assets of one rank then stacked on each other
    "DataAsset": ("#54A24B", "triangle"),
}
CRITICAL_COLOR = "#D62728"
PATH_COLOR = "#E4572E"
HIGHLIGHT_COLOR = "#8B0000"
QUIET_COLOR = "#A0A0A0"
BLOCKED_COLOR = "#7F7F7F"
DENIED_COLOR = "#FF9F1C"
WHATIF_COLOR = "#6A3D9A"
GRAPH_ONLY_COLOR = "#FFB000"

LEGEND = (
    "Blue dot: Identity · teal diamond: Session · orange square: Workload · purple hexagon: IAMRole · "
    "green triangle: DataAsset (red with ★: critical) — "
    "**thick red**: on a qualifying path · thin grey: allowed, not on a path · "
    "dashed grey: **blocked** · dashed amber: **blocked in the graph only** (not on the account: its paths are "
    "open there) · dotted orange: **denied** · dashed purple: blocked in a what-if · "
    "dash-dot, labelled with its method: **privilege escalation** (`CAN_ESCALATE`; hover for the actions)"
)
ESCALATION_DASHES = [14, 5, 3, 5]
AWS_LEGEND = (
    "Imported from AWS: hover a node for its ARN and kind; the account is written under each node and drawn "
    "as its border colour (one colour per account), and a relationship that crosses accounts is labelled "
    "**cross-account**."
)
# Border colours for AWS accounts, in the order the accounts appear (sorted) in one drawing.
ACCOUNT_COLORS = ("#1F77B4", "#FF7F0E", "#2CA02C", "#9467BD", "#8C564B", "#E377C2", "#17BECF", "#BCBD22")


def aws_account(props: dict) -> str | None:
    """The AWS account of a node imported from AWS (it has `aws_kind` and `account`), else None."""
    if props.get("aws_kind") and props.get("account"):
        return str(props["account"])
    return None


def account_colors(nodes) -> dict[str, str]:
    """A border colour per AWS account among `nodes` (accounts sorted, colours reused beyond eight)."""
    accounts = sorted({a for a in (aws_account(n.properties) for n in nodes) if a})
    return {account: ACCOUNT_COLORS[i % len(ACCOUNT_COLORS)] for i, account in enumerate(accounts)}


def aws_hover(props: dict) -> str:
    """The first hover lines of a node imported from AWS: ARN, kind and account (empty for other nodes)."""
    if not aws_account(props):
        return ""
    lines = [f"{key}: {props[key]}" for key in ("arn", "aws_kind", "account") if props.get(key) not in (None, "")]
    return "\n".join(lines) + ("\n" if lines else "")


LABEL_CHARS = 28  # a node's label in a drawing: a short name; the full id and ARN show on hover


def short_label(node) -> str:
    """A node's label in a drawing: for a node imported from AWS its name (a role or user name, a
    bucket name) or else the last part of its ARN; for others its id; cut to LABEL_CHARS."""
    text = node.id
    if aws_account(node.properties):
        arn = str(node.properties.get("arn") or "")
        text = node.name or arn.replace(":", "/").rstrip("/").rsplit("/", 1)[-1] or node.id
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def edge_state(rel, graph_only: frozenset[str] | set[str] = frozenset()) -> str:
    """How a relationship is drawn: `graph-only` for a block the account does not hold (its route in
    `graph_only`), `blocked`, `denied`, on a qualifying `path`, or merely `allowed`."""
    props = rel.properties
    if props.get("status") == "blocked":
        return "graph-only" if props.get("route_id") in graph_only else "blocked"
    if props.get("permission") == "deny":
        return "denied"
    return "path" if getattr(rel, "on_path", True) else "allowed"


def levels(nodes, relationships, start: str | None) -> dict[str, int]:
    """Hop distance from the start entity (breadth first), used as the left-to-right layout level."""
    order = {"Identity": 0, "Session": 1, "Workload": 2, "IAMRole": 3, "DataAsset": 5}
    found: dict[str, int] = {}
    if start is not None:
        found[start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for rel in relationships:
                if rel.source in frontier and rel.target not in found:
                    found[rel.target] = found[rel.source] + 1
                    nxt.append(rel.target)
            frontier = nxt
    for node in nodes:
        found.setdefault(node.id, order.get(node.label, 0))
    return found


def build(
    nodes,
    relationships,
    highlight: set[tuple[str, str, str]] | None = None,
    start: str | None = None,
    what_if: set[str] | None = None,
    *,
    graph_only: set[str] | None = None,
):
    """agraph nodes and edges; `what_if` route ids are drawn as 'would be blocked', `graph_only` route
    ids as 'blocked in the graph only' (a block the account does not hold)."""
    highlight = highlight or set()
    what_if = what_if or set()
    graph_only = graph_only or set()
    level = levels(nodes, relationships, start)
    accounts = account_colors(nodes)
    node_account = {n.id: aws_account(n.properties) for n in nodes if aws_account(n.properties)}
    drawn_nodes = []
    for node in nodes:
        color, shape = LABEL_STYLE.get(node.label, ("#999999", "dot"))
        sensitivity = node.properties.get("sensitivity")
        name = short_label(node)
        label = name
        if node.label == "DataAsset":
            label = f"{name}\n[{sensitivity}]"
            if sensitivity == "critical":
                color, label = CRITICAL_COLOR, f"★ {name}\n[critical]"
        size = 30 if node.id == start else 22
        # streamlit-agraph parses a node title as HTML (and opens it on double click): escape it, and
        # keep the label first so the text never starts like a URL.
        title = html.escape(
            f"{node.label}: {node.name}\n"
            + (f"id: {node.id}\n" if node.id != node.name else "")
            + aws_hover(node.properties)
            + json.dumps(node.properties, default=str)[:400]
        )
        account = node_account.get(node.id)
        aws = {}
        if account:
            label += f"\n@{account}"
            border = accounts[account]
            aws = {
                "account": account,
                "aws_kind": node.properties.get("aws_kind"),
                "arn": node.properties.get("arn"),
                "color": {"background": color, "border": border, "highlight": {"background": color, "border": border}},
                "borderWidth": 4,
            }
        style = {"color": color, "shape": shape, "size": size, "level": level[node.id], "font": {"size": 14}}
        drawn_nodes.append(Node(id=node.id, label=label, title=title, **{**style, **aws}))
    drawn_edges = []
    for rel in relationships:
        state = edge_state(rel, graph_only)
        key = (rel.source, rel.type, rel.target)
        route = rel.properties.get("route_id")
        if route in what_if and state not in ("blocked", "graph-only"):
            state = "what-if"
        label = rel.type + (f"\n{route}" if route else "")
        style = {
            "path": {"color": PATH_COLOR, "width": 3},
            "allowed": {"color": QUIET_COLOR, "width": 1},
            "blocked": {"color": BLOCKED_COLOR, "width": 2, "dashes": True},
            "denied": {"color": DENIED_COLOR, "width": 2, "dashes": [2, 6]},
            "what-if": {"color": WHATIF_COLOR, "width": 3, "dashes": [8, 4]},
            "graph-only": {"color": GRAPH_ONLY_COLOR, "width": 3, "dashes": [10, 4]},
        }[state]
        if state in ("blocked", "denied", "what-if"):
            label += f"\n({state})"
        elif state == "graph-only":
            label += "\n(blocked in the graph only)"
        method = rel.properties.get("method") if rel.type == "CAN_ESCALATE" else None
        if method:
            label = f"{label}\nescalation: {method}"
            if state in ("path", "allowed"):
                style = {**style, "dashes": ESCALATION_DASHES, "width": style["width"] + 1}
        source_account, target_account = node_account.get(rel.source), node_account.get(rel.target)
        crosses = bool(source_account and target_account and source_account != target_account)
        if crosses:
            label += f"\n(cross-account {source_account} → {target_account})"
        if key in highlight:
            style = {"color": HIGHLIGHT_COLOR, "width": 6}
        drawn_edges.append(
            Edge(
                source=rel.source,
                target=rel.target,
                label=label,
                title=(f"privilege escalation by {method}: " if method else "")
                + f"{rel.type} [{state}] "
                + json.dumps(rel.properties, default=str),
                state=state,
                rel_type=rel.type,
                cross_account=crosses,
                font={"size": 11, "align": "middle"},
                smooth={"enabled": True, "type": "curvedCW", "roundness": 0.12},
                **style,
            )
        )
    return drawn_nodes, drawn_edges


def draw(
    nodes, relationships, *, graph_id: str, highlight=None, start=None, height: int = 460, what_if=None, graph_only=None
):
    """Draw the graph; `graph_id` keeps two drawings on one page distinct."""
    drawn_nodes, drawn_edges = build(nodes, relationships, highlight, start, what_if, graph_only=graph_only)
    config = Config(
        width="100%",
        height=height,
        directed=True,
        physics=False,
        hierarchical=True,
        direction="LR",
        sortMethod="directed",
        # ranks left to right, wide enough for a short label (LABEL_CHARS) and tall enough for three lines
        levelSeparation=260,
        nodeSpacing=130,
        treeSpacing=160,
    )
    config.width = "100%"
    config.graph_id = graph_id
    config.interaction = {"hover": True, "navigationButtons": True, "tooltipDelay": 120}
    return agraph(drawn_nodes, drawn_edges, config)


def _rel_text(rel) -> str:
    """A relationship's type, with the escalation method of a `CAN_ESCALATE`."""
    method = rel.properties.get("method") if rel.type == "CAN_ESCALATE" else None
    return f"{rel.type}: {method}" if method else rel.type


def path_rows(paths) -> list[dict]:
    return [
        {
            "#": i + 1,
            "hops": p.hops,
            "path": " → ".join(
                [p.nodes[0].id]
                + [f"[{_rel_text(r)}] {n.id}" for r, n in zip(p.relationships, p.nodes[1:], strict=True)]
            ),
            "asset": p.nodes[-1].id,
            "sensitivity": p.nodes[-1].properties.get("sensitivity"),
            "routes": ", ".join(p.route_ids) or "—",
        }
        for i, p in enumerate(paths)
    ]
