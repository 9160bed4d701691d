"""The twelfth held-out set of briefing sentences (issue 42), written blind: its writer has not seen the checker.

Style: an AI model's incident briefing as the dashboard shows it. Markdown with headings (Summary /
Evidence / Containment / On the account / Recommendations), each with a one-line body; bullets, bold
and italics, parentheticals and caveats; sentences that mix a fact with a recommendation ("route-x is
still active, so block it next"); markdown tables with a status, "before" or "after" column; emoji and
checkbox status lines; strikethrough; and the verbose, over-qualified wording models produce ("It is
worth noting that...", "At this point in time...").

Every label is computed from the Context's facts (the fresh evidence `c.ev`, the run record `c.run`,
the graph's relationships `c.edges`, names and ARNs), never written by hand. A sentence is truthful
when every claim it makes holds; a table is a claim about each of its rows.

Conventions, kept throughout:
- a hedged claim ("probably X", "I think X", "it appears that X") claims X;
- a quotation of a third party (in quotes or a block quote, attributed to someone) claims nothing;
  the briefing's own sentence around it does claim;
- a question claims nothing, its answer does;
- a recommendation or a plan ("we should block R", "consider revoking", "block it next") claims
  nothing of its own; a fact stated beside it ("R is still active, so block it next") is claimed;
- a conditional or hypothetical ("if R were blocked, one path would remain") claims only what it
  asserts: the what-if's outcome, computed from the live paths;
- "could still reach" is a claim about reach now;
- an unqualified "contained" is not written about a graph_only run (it is contained in the graph and
  not on the account); such runs get claims qualified by "in the graph" or "on the account".

Sentences name only entities of the context's graph; a sentence whose truth the facts do not decide
is not written.
"""

from __future__ import annotations

from collections.abc import Iterable

from tests.helpers.briefing_families import Context, Family, both, on_paths, pairs, paths_at_start, reaches, words

__all__ = ["TWELFTH"]

Pairs = Iterable[tuple[str, bool]]

BANDS = ((0, 29, "low"), (30, 59, "medium"), (60, 79, "high"), (80, 100, "critical"))
RULES = {
    "E1-critical-reach": 20,
    "E1-high-reach": 10,
    "E2-short-path": 15,
    "E2-medium-path": 10,
    "E2-long-path": 5,
    "E3-multiple-paths": 10,
    "E4-breadth": 5,
    "S-internet_exposed": 25,
    "S-wildcard_policy": 20,
    "S-impossible_travel": 20,
    "S-off_hours_login": 10,
    "S-mfa_disabled": 10,
}


# -- facts --------------------------------------------------------------------------------------
def _state(c: Context) -> str | None:
    return None if c.run is None else str(getattr(c.run.state, "value", c.run.state))


def _contained(c: Context) -> bool:
    """No qualifying path in a fresh query (said unqualified only where the run is not graph_only)."""
    return c.ev.path_count == 0 and c.ev.status == "no_path"


def _aws(c: Context) -> bool:
    return bool(c.arns) or c.key.startswith("aws/")


def _n(c: Context) -> int:
    return c.ev.path_count


def _blocked_by_run(c: Context) -> list[str]:
    if c.run is None:
        return []
    return [a.route_id for a in c.run.actions if a.status == "applied" and a.operation == "block_route"]


def _start_score(c: Context) -> int | None:
    if c.run is None:
        return c.ev.risk_score
    step = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return int(step.data["risk_score"]) if step is not None and "risk_score" in step.data else None


def _band(score: int) -> str:
    return next(b for lo, hi, b in BANDS if lo <= score <= hi)


def _other_band(band: str) -> str:
    order = [b for _, _, b in BANDS]
    return order[(order.index(band) + 1) % len(order)]


def _name(c: Context, x: str) -> str:
    return c.names.get(x, x)


def _ref(c: Context, x: str, style: int) -> str:
    """An entity by graph id, plain name, another case, or ARN."""
    style %= 4
    if style == 0:
        return f"`{x}`"
    if style == 1:
        return f"*{_name(c, x)}*"
    if style == 2:
        arn = c.arns.get(x, "")
        return arn if arn and c.ev.arns.get(arn) == x else x.upper()
    return f"{_name(c, x)} ({x})"


def _assets_ever(c: Context) -> list[str]:
    """High or critical assets on a qualifying path now, or cut off from the alert's entity (they were on one)."""
    if c.ev.assets:
        return list(c.ev.assets)
    labels = dict(c.ev.adjacent)
    return sorted(x for x in c.ev.cut_off_entities if labels.get(x) == "DataAsset")


def _remaining_if(c: Context, source: str, target: str) -> int:
    """Live paths that do not use the relationship source -> target."""
    return sum(not any(p[i] == source and p[i + 1] == target for i in range(len(p) - 1)) for p in c.live)


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _seed_routes(c: Context) -> list:
    return [] if _aws(c) else list(c.ev.routes)


# -- families -------------------------------------------------------------------------------------
def state_headings(c: Context) -> Pairs:
    """Section headings with a one-line body stating the alert's and the run's state."""
    st = _state(c)
    out: list[tuple[str, bool]] = []
    if st != "graph_only":
        out += both(
            "## Summary\nAt this point in time, it appears that the alert is **fully contained**: a fresh query"
            " found no qualifying path to high or critical data.",
            "## Summary\nIt is worth noting that the alert is *not yet contained*; qualifying paths to sensitive"
            " data remain open.",
            _contained(c),
        )
    out += both(
        "## Containment\nNo containment run has been started for this alert so far (nothing has been blocked by"
        " BlastShield on its behalf).",
        "## Containment\nA containment run has already been carried out on this alert.",
        c.run is None,
    )
    if c.run is not None:
        out += both(
            "## Containment\nThe containment run **completed**: its verdict is `completed`.",
            "## Containment\nThe containment run did *not* complete (its verdict is something other than `completed`).",
            st == "completed",
        )
        capped = st == "stopped" and "cap" in c.run.reason
        out += both(
            f"## Containment\nThe run was **stopped** once it hit its action cap of {words(c.run.max_actions)}.",
            "## Containment\nThe run was not halted by its action cap.",
            capped,
        )
        no_route = st == "stopped" and "none passes through an active session route" in c.run.reason
        out += both(
            "## Containment\nThe run stopped *without acting*, because none of the paths passes through an active"
            " session route that could be blocked.",
            "## Containment\nIt should be noted that the run did not stop for lack of a blockable session route.",
            no_route,
        )
    return out


def state_status_lines(c: Context) -> Pairs:
    """Emoji and checkbox status lines, as a model's dashboard summary writes them."""
    st = _state(c)
    out: list[tuple[str, bool]] = []
    if st != "graph_only":
        cont = _contained(c)
        open_n = _n(c) if not cont else paths_at_start(c)
        out += [
            ("✅ Contained — a fresh query found no qualifying path", cont),
            (
                f"❌ Not contained: {open_n} qualifying {_plural(open_n, 'path is', 'paths are')} still open",
                not cont,
            ),
        ]
    label = {None: "⚪ no run yet", "completed": "🟢 completed", "stopped": "🟠 stopped", "graph_only": "🟡 graph_only"}
    for shown in (st, *[s for s in ("completed", "stopped", None, "graph_only") if s != st][:2]):
        out.append((f"Status: {label[shown]}", shown == st))
    if c.run is not None:
        done = st == "completed"
        k = len(c.run.actions)
        out += [
            (
                f"- [x] Containment run finished as **completed** ({words(k)} {_plural(k, 'action', 'actions')} taken)",
                done,
            ),
            (f"- [x] Run ended *stopped* after {words(k)} {_plural(k, 'action', 'actions')}", st == "stopped"),
        ]
    assets = _assets_ever(c)
    if assets and st != "graph_only":
        a = assets[0]
        live = a in c.ev.assets
        out += both(
            f"🔴 Exposed — {_name(c, a)} is still reachable from {c.ev.entity_id} over a qualifying path",
            f"🟢 {_name(c, a)} can no longer be reached from {c.ev.entity_id} over any qualifying path",
            live,
        )
    return out


def run_tables(c: Context) -> Pairs:
    """Tables of the run: its verdict row and its actions with before/after path counts."""
    if c.run is None:
        return []
    st = _state(c) or ""
    run = c.run
    out: list[tuple[str, bool]] = []
    head = "| run | decider | cap | verdict |\n|---|---|---|---|\n"
    out.append((f"{head}| {run.run_id} | {run.decider} | {run.max_actions} | **{st}** |", True))
    wrong = "stopped" if st != "stopped" else "completed"
    out.append((f"{head}| {run.run_id} | {run.decider} | {run.max_actions} | **{wrong}** |", False))
    out.append((f"{head}| {run.run_id} | {run.decider} | {run.max_actions + 2} | **{st}** |", False))
    acts = [a for a in run.actions if a.operation == "block_route"]
    if acts:
        head2 = "| step | action | result | paths before → after |\n|---|---|---|---|\n"
        rows = [
            f"| {a.step} | block `{a.route_id}` | {'✅ verified' if a.verified else '❌ not verified'} |"
            f" {a.paths_before} → {a.paths_after} |"
            for a in acts
        ]
        out.append((head2 + "\n".join(rows), True))
        a = acts[-1]
        bad = [
            *rows[:-1],
            f"| {a.step} | block `{a.route_id}` | {'✅ verified' if a.verified else '❌ not verified'} |"
            f" {a.paths_before} → {(a.paths_after or 0) + 1} |",
        ]
        out.append((head2 + "\n".join(bad), False))
    n = len(run.actions)
    out += both(
        f"The run took {words(n)} {_plural(n, 'action', 'actions')} in total (decider: *{run.decider}*).",
        f"The run took {words(n + 1)} {_plural(n + 1, 'action', 'actions')} in total (decider: *{run.decider}*).",
        True,
    )
    left = run.remaining_paths if run.remaining_paths is not None else _n(c)
    # none remaining is a claim of containment, false while paths are open on the AWS account
    out.append((f"- **Remaining paths after the run:** {left}", left > 0 or c.contained))
    out.append((f"- **Remaining paths after the run:** {left + 2}", False))
    return out


def route_recommendations(c: Context) -> Pairs:
    """A route's status with the recommendation that follows from it (the recommendation claims nothing)."""
    out: list[tuple[str, bool]] = []
    for i, r in enumerate(_seed_routes(c)):
        active = r.status == "active"
        if i % 2 == 0:
            out += both(
                f"## Recommendations\n`{r.route_id}` is still active, so block it next.",
                f"## Recommendations\n`{r.route_id}` has already been blocked, so nothing more is needed on it.",
                active,
            )
        else:
            out += both(
                f"I think {r.route_id} remains *active* — consider blocking it as a precaution.",
                f"{r.route_id} is (as far as the graph shows) *blocked*; we should leave it that way.",
                active,
            )
        k = r.paths_carried
        carried = "no qualifying path" if k == 0 else f"{words(k)} of the qualifying paths"
        wrong = f"{words(k + 1)} of the qualifying paths"
        out += both(
            f"It is worth noting that `{r.route_id}` currently carries {carried}.",
            f"It is worth noting that `{r.route_id}` currently carries {wrong}.",
            True,
        )
    return out


def route_markers(c: Context) -> Pairs:
    """Strikethrough, bold and status-column tables for the alert's routes."""
    routes = _seed_routes(c)
    if not routes:
        return []
    out: list[tuple[str, bool]] = []
    mine = set(_blocked_by_run(c))
    for r in routes:
        if r.status == "active" or r.route_id in mine:  # active before any run here: a strikethrough change reads true
            out += both(
                f"- `{r.route_id}`: ~~active~~ **blocked**",
                f"- `{r.route_id}`: **active** (not blocked)",
                r.status == "blocked",
            )
    head = "| route | type | status |\n|---|---|---|\n"
    rows = [f"| `{r.route_id}` | {r.type} | {r.status} |" for r in routes]
    out.append((head + "\n".join(rows), True))
    flip = {"active": "blocked", "blocked": "active"}
    for i, r in enumerate(routes[:2]):
        bad = list(rows)
        bad[i] = f"| `{r.route_id}` | {r.type} | {flip[r.status]} |"
        out.append((head + "\n".join(bad), False))
    if c.run is not None:
        head = "| route | before the run | after |\n|---|---|---|\n"
        before = {r.route_id: ("active" if r.route_id in mine else r.status) for r in routes}
        rows = [f"| {r.route_id} | {before[r.route_id]} | {r.status} |" for r in routes]
        out.append((head + "\n".join(rows), True))
        r = routes[-1]
        bad = [*rows[:-1], f"| {r.route_id} | {before[r.route_id]} | {flip[r.status]} |"]
        out.append((head + "\n".join(bad), False))
    return out


def count_paths(c: Context) -> Pairs:
    """Path counts in words and digits, shares, percentages and ranges."""
    start, now = paths_at_start(c), _n(c)
    where = " in the graph" if _state(c) == "graph_only" else ""
    out: list[tuple[str, bool]] = []

    def of_start(m: int) -> str:
        if start == 1:
            return f"The single qualifying path found at the start is {'still open' if m else 'no longer open'}{where}."
        return (
            f"Of the {words(start)} qualifying paths found at the start, {words(m)}"
            f" {_plural(m, 'remains', 'remain')} open{where}."
        )

    wrong_now = now + 1 if now < start else now - 1
    out += [(of_start(now), True), (of_start(wrong_now), False)]
    out += both(
        f"**{now}** qualifying {_plural(now, 'path', 'paths')} to high or critical data {_plural(now, 'is', 'are')}"
        f" open{where} right now.",
        f"**{now + 1}** qualifying {_plural(now + 1, 'path', 'paths')} to high or critical data"
        f" {_plural(now + 1, 'is', 'are')} open{where} right now.",
        True,
    )
    if start > 0:
        cut = round(100 * (start - now) / start)
        other = 100 - cut if 100 - cut != cut else 100
        out += both(
            f"At this point in time, {cut}% of the original qualifying paths have been cut{where}.",
            f"At this point in time, {other}% of the original qualifying paths have been cut{where}.",
            True,
        )
    if where:
        return out
    lo, hi = (now - 1, now + 1) if now >= 1 else (0, 1)
    out.append((f"Somewhere between {words(lo)} and {words(hi)} qualifying paths are still open (inclusive).", True))
    out.append((f"Somewhere between {words(now + 2)} and {words(now + 4)} qualifying paths are still open.", False))
    if now == 0:
        out += both(
            "There is *not a single* qualifying path left.",
            "At least one qualifying path is still open.",
            True,
        )
    elif now == start:
        out += both(
            "None of the original paths has been cut so far." if start > 1 else "The original path has not been cut.",
            "Every one of the original paths has been cut." if start > 1 else "The original path has been cut.",
            True,
        )
    else:
        out += both(
            f"Some, but not all, of the {words(start)} original paths have been cut.",
            "None of the original paths has been cut.",
            True,
        )
    return out


def hop_bullets(c: Context) -> Pairs:
    """Path lengths as bullets and sentences: hops, relationships, 'N-hop chain', 'at most'."""
    live = c.ev.paths
    if not live:
        return []
    out: list[tuple[str, bool]] = []
    short = min(live, key=lambda p: p.hops)
    long_ = max(live, key=lambda p: p.hops)
    ent, a = short.nodes[0], short.nodes[-1]
    out += both(
        f"- **Shortest path:** {words(short.hops)} {_plural(short.hops, 'hop', 'hops')} ({ent} → … → {a})",
        f"- **Shortest path:** {words(short.hops + 1)} hops ({ent} → … → {a})",
        True,
    )
    out += both(
        f"The longest qualifying path is a {long_.hops}-hop chain ending at *{_name(c, long_.nodes[-1])}*.",
        f"The longest qualifying path is a {long_.hops + 2}-hop chain ending at *{_name(c, long_.nodes[-1])}*.",
        True,
    )
    if long_.hops > 1:
        out += both(
            f"It is worth noting that every qualifying path is at most {words(long_.hops)} relationships long.",
            f"It is worth noting that every qualifying path is at most {words(long_.hops - 1)}"
            f" {_plural(long_.hops - 1, 'relationship', 'relationships')} long.",
            True,
        )
    for asset in sorted({p.nodes[-1] for p in live})[:2]:
        d = min(p.hops for p in live if p.nodes[-1] == asset)
        out += both(
            f"{_ref(c, asset, 1)} sits {words(d)} {_plural(d, 'hop', 'hops')} away from {ent}.",
            f"{_ref(c, asset, 1)} sits {words(d + 1)} hops away from {ent}.",
            True,
        )
    one_hop = any(p.hops == 1 for p in live)
    out += both(
        f"{_name(c, ent)} reaches sensitive data in a single hop (a direct grant).",
        f"No qualifying path from {_name(c, ent)} is shorter than two hops.",
        one_hop,
    )
    return out


def score_wording(c: Context) -> Pairs:
    """The risk score, its band, the rules that fired, and its change over the run."""
    if _state(c) == "graph_only":
        return []  # the graph's score; the account still has the path: not unambiguous
    s, sev = c.ev.risk_score, c.ev.severity
    out: list[tuple[str, bool]] = []
    out += both(
        f"It is worth noting that the risk score currently stands at {s}/100, which falls in the _{sev}_ band.",
        f"It is worth noting that the risk score currently stands at {min(s + 15, 100)}/100"
        f" (severity: {_band(min(s + 15, 100))}).",
        min(s + 15, 100) != s,
    )
    out += both(
        f"Severity: *{sev}* (rule set {c.ev.rule_set}).",
        f"Severity: *{_other_band(sev)}* (rule set {c.ev.rule_set}).",
        True,
    )
    fired = {f.rule: f.points for f in c.ev.factors}
    yes = sorted(fired)[:2]
    no = [r for r in RULES if r not in fired][:2]
    for r in yes:
        out.append((f"Rule `{r}` fired and contributes *+{fired[r]}* points to the score.", True))
    for r in no:
        out.append((f"Rule `{r}` fired and contributes *+{RULES[r]}* points to the score.", False))
    start = _start_score(c)
    if c.run is not None and start is not None:
        if start != s:
            out += both(
                f"The score has dropped from {start} to {s} since the containment run (a fall of {start - s} points).",
                f"The score is unchanged at {start} after the containment run.",
                True,
            )
        else:
            out += both(
                f"The score is unchanged at {s} after the run, probably because nothing was cut.",
                f"The score has dropped from {start} to {max(s - 20, 0)} since the containment run.",
                True,
            )
    return out


def link_claims(c: Context) -> Pairs:
    """Relationships between two named entities, checked against the graph (denied, blocked, absent)."""
    forms = {
        "CAN_ASSUME": ("{a} can assume {b} directly.", "{a} is unable to assume {b} directly."),
        "CAN_READ": ("{a} has a working read grant on {b}.", "{a} has no working read grant on {b}."),
        "RUNS_AS": ("{a} runs as {b}.", "{a} does not run as {b}."),
        "HAS_SESSION": ("{a} holds an active session, {b}.", "{a} does not hold an active session {b}."),
        "CAN_ACCESS": (
            "Session {a} can currently reach workload {b}.",
            "Session {a} can no longer reach workload {b}.",
        ),
    }
    out: list[tuple[str, bool]] = []
    i = 0
    for rel, (pos, neg) in forms.items():
        for a, b in pairs(c, rel):
            if rel in ("CAN_READ", "RUNS_AS", "HAS_SESSION", "CAN_ACCESS") and not c.edge(a, rel, b):
                continue  # reversed pairs of these read as nonsense; only the assumption goes both ways
            if _aws(c) and rel in ("HAS_SESSION", "CAN_ACCESS"):
                continue  # the key blocked in the graph may still work on the account: not unambiguous
            works = c.edge_works(a, rel, b)
            ra, rb = _ref(c, a, i), _ref(c, b, i + 1)
            if i % 3 == 2:
                pos2, neg2 = "It appears that " + pos[0].lower() + pos[1:], "At this point in time, " + neg
                if pos[0] == "{":
                    pos2, neg2 = "It appears that " + pos, "At this point in time, " + neg
            else:
                pos2, neg2 = pos, neg
            out += both(pos2.format(a=ra, b=rb), neg2.format(a=ra, b=rb), works)
            i += 1
    return out


def through_paths(c: Context) -> Pairs:
    """'Both paths run through X', 'neither', 'two of the three', 'the single remaining path'."""
    n = _n(c)
    if n == 0:
        return []
    cands = list(on_paths(c))
    cands += [e.id for e in c.ev.blast_radius if not e.on_critical_path and e.id not in cands][:2]
    out: list[tuple[str, bool]] = []
    for i, x in enumerate(cands):
        k = sum(x in p for p in c.live)
        rx = _ref(c, x, i)
        if n == 1:
            out += both(
                f"The single remaining path goes through {rx}.",
                f"{rx} is not on the remaining path.",
                k == 1,
            )
        elif n == 2:
            said = {
                2: f"Both paths run through {rx}.",
                1: f"Only one of the two paths passes through {rx} (the other avoids it).",
                0: f"Neither path goes through {rx}.",
            }
            out.append((said[k], True))
            out.append((said[(k + 1) % 3 if i % 2 else (k + 2) % 3], False))
        else:

            def count(m: int, rx: str = rx) -> str:
                if m == n:
                    return f"All {words(n)} paths pass through {rx}."
                if m == 0:
                    return f"None of the {words(n)} paths goes through {rx}."
                return f"Only {words(m)} of the {words(n)} paths {_plural(m, 'goes', 'go')} through {rx}."

            out.append((count(k), True))
            out.append((count(k + 1 if k < n else k - 1), False))
    return out


def name_forms(c: Context) -> Pairs:
    """Entities by plain name, another case, graph id or ARN, in reach and sensitivity claims."""
    out: list[tuple[str, bool]] = []
    ent = c.ev.entity_id
    assets = _assets_ever(c)
    if not assets:
        return []
    if _aws(c):
        a = assets[0]
        r = reaches(c, ent, a)
        for st in (2, 1, 3):
            out += both(
                f"According to the graph, {_ref(c, ent, st)} can still read {_ref(c, a, st)}.",
                f"According to the graph, {_ref(c, ent, st)} no longer has any qualifying path to {_ref(c, a, st)}.",
                r,
            )
        return out
    labels = dict(c.ev.adjacent)
    inner = sorted({x for p in c.live for x in p[1:-1]})
    off = [x for x in c.ev.cut_off_entities if x != ent and labels.get(x) != "DataAsset"][:2] + [
        e.id for e in c.ev.blast_radius if not e.on_critical_path and e.label != "DataAsset"
    ][:1]
    for i, x in enumerate((inner[:2] + off)[:4]):
        a = assets[i % len(assets)]
        r = reaches(c, x, a)
        out += both(
            f"*{_name(c, x)}* (`{x.upper()}`) still has a qualifying path on to the {_name(c, a)}.",
            f"{_ref(c, x, i)} is not on any qualifying path to {_ref(c, a, i + 1)}.",
            r,
        )
    if c.ev.assets:
        for a in c.ev.assets[:3]:
            if a not in c.ev.critical_assets and a not in c.ev.high_assets:
                continue
            out += both(
                f"The {_name(c, a)} ({_ref(c, a, 2)}) is classified as *critical*.",
                f"The {_name(c, a)} ({_ref(c, a, 2)}) is rated *high*, not critical.",
                a in c.ev.critical_assets,
            )
    return out


def account_claims(c: Context) -> Pairs:
    """What was and was not done on the AWS account: keys, policies, sessions, 'not applied in AWS'."""
    out: list[tuple[str, bool]] = []
    if not _aws(c):
        if c.run is not None and c.run.actions:
            out += both(
                "## On the account\nThis run made no change on any AWS account (no access key, policy or session was"
                " touched there).",
                "## On the account\nThe run deactivated an access key on the AWS account.",
                not c.account_done("any"),
            )
        return out
    key = c.account_done("key")
    user = c.user
    revoked = c.run is not None and any(
        a.operation in ("revoke_role_sessions", "revoke_user_sessions") and a.applied is True and a.api_verified is True
        for a in c.run.actions
    )
    user_arn = next((arn for arn, x in c.ev.arns.items() if x.endswith(f":user:{user}")), user)
    out += both(
        f"## On the account\n{user}'s access key was **deactivated in AWS** (iam:UpdateAccessKey), and the change was"
        " verified by re-reading it through the API.",
        "## On the account\nNothing was changed in AWS: the block was *not applied in AWS* and the key still works"
        " there.",
        key,
    )
    out += both(
        f"- [x] Access key of `{user_arn}` set to Inactive on the account",
        f"Status: ❌ the access key of `{user_arn}` is still Active on the account",
        key,
    )
    out += both(
        f"A deny-all inline policy was attached to {user} as part of this run.",
        f"No deny-all policy was attached to {user} (it appears the run did not touch {user}'s policies).",
        c.account_done("policy"),
    )
    out += both(
        f"The sessions {user} had already obtained with the key were revoked by the run.",
        f"I think it is worth stressing that the sessions {user} already obtained were *not* revoked; consider"
        " revoking them next.",
        revoked,
    )
    head = "| action | in the graph | on the account |\n|---|---|---|\n"
    row = f"| block {_name(c, next(iter(_blocked_by_run(c)), user))} | ✅ blocked |"
    out.append((head + row + (" ✅ applied and verified |" if key else " ❌ not applied in AWS |"), True))
    out.append((head + row + (" ❌ not applied in AWS |" if key else " ✅ applied and verified |"), False))
    out += both(
        f"{user} can probably no longer use this key against AWS, although sessions issued earlier keep working"
        " until they expire.",
        f"{user}'s key probably still works against AWS.",
        key,
    )
    return out


def modal_whatif(c: Context) -> Pairs:
    """Conditionals, hypotheticals, hedges and plans: only what they assert is claimed."""
    out: list[tuple[str, bool]] = []
    n = _n(c)
    ent = c.ev.entity_id
    for r in [r for r in _seed_routes(c) if r.status == "active" and r.paths_carried > 0][:2]:
        rem = _remaining_if(c, r.source, r.target)
        wrong = rem + 1 if rem < n else rem - 1
        if n == 1:
            out += both(
                f"If `{r.route_id}` were blocked, the one current path would be cut.",
                f"If `{r.route_id}` were blocked, the one current path would still be open.",
                rem == 0,
            )
        else:
            out += both(
                f"If `{r.route_id}` were blocked, {words(rem)} of the {words(n)} current paths would remain.",
                f"If `{r.route_id}` were blocked, {words(wrong)} of the {words(n)} current paths would remain.",
                True,
            )
        out += both(
            f"Blocking `{r.route_id}` on its own would probably cut every remaining path.",
            f"Blocking `{r.route_id}` on its own would still leave at least one path open.",
            rem == 0,
        )
    if n > 0:
        routed = any(r.paths_carried > 0 and r.status == "active" for r in c.ev.routes)
        which = "the remaining path" if n == 1 else f"the {words(n)} remaining paths"
        out += both(
            f"At least one of {which} could be cut by blocking a session route."
            if n > 1
            else "The remaining path could be cut by blocking a session route.",
            f"None of {which} can be cut by blocking a session route; a different kind of action would be needed."
            if n > 1
            else "The remaining path cannot be cut by blocking a session route.",
            routed,
        )
    assets = _assets_ever(c)
    if assets and _state(c) != "graph_only":
        a = assets[0]
        out += both(
            f"It appears that {ent} could still reach {_name(c, a)}, so we should keep the alert open.",
            f"{ent} could not reach {_name(c, a)} any more, even if we did nothing else.",
            reaches(c, ent, a),
        )
    # plans and conditions: no claim of their own
    out.append((f"We should consider revoking the sessions of {ent} as a follow-up.", True))
    out.append(("If a fresh query later finds no qualifying path, the alert would then count as contained.", True))
    return out


def quotation_third_party(c: Context) -> Pairs:
    """Quotes of third parties (no claim), questions (no claim) and the briefing's own answers (a claim)."""
    out: list[tuple[str, bool]] = []
    ent = c.ev.entity_id
    st = _state(c)
    assets = _assets_ever(c)
    if st != "graph_only":
        cont = _contained(c)
        out += both(
            f'> "{_name(c, ent)} has been completely locked out," the service desk ticket says.\n\n'
            "The graph agrees: no qualifying path remains.",
            f'> "{_name(c, ent)} has been completely locked out," the service desk ticket says.\n\n'
            "The graph does not support this: qualifying paths remain.",
            cont,
        )
        out += both(
            "**Is the alert contained?** Yes — a fresh query found no qualifying path.",
            "**Is the alert contained?** No — qualifying paths are still open.",
            cont,
        )
    if assets:
        out.append(
            (
                f'The phishing message read: "Your access to {_name(c, assets[0])} has been suspended and every'
                ' session was blocked; log in here to restore it."',
                True,
            )
        )
    mine = set(_blocked_by_run(c))
    for r in _seed_routes(c)[:2]:
        out += both(
            f'The user told us "I never used {r.target}". Whatever the case, `{r.route_id}` is currently {r.status}.',
            f'The user told us "I never used {r.target}". Whatever the case, `{r.route_id}` is currently'
            f" {'active' if r.status == 'blocked' else 'blocked'}.",
            True,
        )
        if c.run is not None:
            out += both(
                f"Q: Did the run block `{r.route_id}`?\nA: Yes, it was one of the run's own actions.",
                f"Q: Did the run block `{r.route_id}`?\nA: No, the run did not act on it.",
                r.route_id in mine,
            )
    if _aws(c):
        out.append(
            (
                f"AWS's documentation says \"a deactivated access key cannot be used to sign requests\"; {c.user}'s key"
                f" {'has' if c.account_done('key') else 'has not'} been deactivated on the account.",
                True,
            )
        )
        out.append(
            (
                f"AWS's documentation says \"a deactivated access key cannot be used to sign requests\"; {c.user}'s key"
                f" {'has not' if c.account_done('key') else 'has'} been deactivated on the account.",
                False,
            )
        )
    return out


def count_assets(c: Context) -> Pairs:
    """Counts of assets and of the blast radius by label, in words, digits, lists, tables and percentages."""
    if _state(c) == "graph_only":
        return []  # the graph's blast radius; the account still has the path: not unambiguous
    out: list[tuple[str, bool]] = []
    assets = sorted(c.ev.assets)
    k = len(assets)
    if k:
        listed = ", ".join(f"`{a}`" for a in assets)
        out += both(
            f"## Evidence\n{words(k).capitalize()} high- or critical-sensitivity {_plural(k, 'asset is', 'assets are')}"
            f" reachable: {listed}.",
            f"## Evidence\n{words(k + 1).capitalize()} high- or critical-sensitivity assets are reachable.",
            True,
        )
        crit = len(c.ev.critical_assets)
        pct = round(100 * crit / k)
        wrong = crit + 1 if crit < k else crit - 1
        out += both(
            f"Of the {words(k)} {_plural(k, 'asset', 'assets')} at risk, {words(crit)} ({pct}%)"
            f" {_plural(crit, 'is', 'are')} critical.",
            f"Of the {words(k)} {_plural(k, 'asset', 'assets')} at risk, {words(wrong)} ({round(100 * wrong / k)}%)"
            f" {_plural(wrong, 'is', 'are')} critical.",
            True,
        )
    else:
        out += both(
            "## Evidence\nNo high- or critical-sensitivity asset is reachable over a qualifying path at this point.",
            "## Evidence\nAt least one critical asset is still reachable over a qualifying path.",
            True,
        )
    by = dict(c.ev.blast_by_label)
    labels = [lab for lab in ("Workload", "IAMRole", "DataAsset") if lab in by]
    head = "| label | in the blast radius |\n|---|---|\n"
    rows = [f"| {lab} | {by[lab]} |" for lab in labels]
    out.append((head + "\n".join(rows), True))
    if labels:
        bad = list(rows)
        bad[-1] = f"| {labels[-1]} | {by[labels[-1]] + 2} |"
        out.append((head + "\n".join(bad), False))
        d = by.get("DataAsset", 0)
        out += both(
            f"The blast radius takes in {words(d)} data {_plural(d, 'asset', 'assets')} (any sensitivity).",
            f"The blast radius takes in {words(d + 1)} data {_plural(d + 1, 'asset', 'assets')} (any sensitivity).",
            True,
        )
    return out


def _capped(make, k: int):
    """At most k sentences of a family per context: consecutive claim/negation pairs from an offset that turns
    with the context, so each context shows a different part of the family's templates."""

    def capped(c: Context) -> Pairs:
        items = list(make(c))
        if len(items) <= k:
            return items
        chunks = [items[i : i + 2] for i in range(0, len(items), 2)]
        off = sum(map(ord, c.key)) % len(chunks)
        keep = sorted((off + j) % len(chunks) for j in range(k // 2))
        return [item for j in keep for item in chunks[j]]

    capped.__doc__ = make.__doc__
    return capped


TWELFTH: list[Family] = [
    Family("h12.state.headings", "state", _capped(state_headings, 4)),
    Family("h12.state.status_lines", "state", _capped(state_status_lines, 4)),
    Family("h12.run.tables", "run", _capped(run_tables, 6)),
    Family("h12.route.recommendations", "route", _capped(route_recommendations, 6)),
    Family("h12.route.markers", "route", _capped(route_markers, 6)),
    Family("h12.count.paths", "count", _capped(count_paths, 4)),
    Family("h12.count.assets", "count", _capped(count_assets, 4)),
    Family("h12.hops.bullets", "hops", _capped(hop_bullets, 6)),
    Family("h12.score.wording", "score", _capped(score_wording, 4)),
    Family("h12.link.claims", "link", _capped(link_claims, 4)),
    Family("h12.through.paths", "through", _capped(through_paths, 6)),
    Family("h12.name.forms", "name", _capped(name_forms, 4)),
    Family("h12.account.claims", "account", account_claims),
    Family("h12.modal.whatif", "modal", _capped(modal_whatif, 4)),
    Family("h12.quotation.third_party", "quotation", _capped(quotation_third_party, 4)),
]
