"""The eighth held-out set: briefing sentences written the way a language model writes an incident briefing.

Written without reading the checker, its vocabulary, the earlier families or their corpora. Each family's
`make(c)` yields (text, truthful) pairs whose label is computed from the Context's facts (the fresh
evidence, the run record and its actions' account fields, the exported graph), never written by hand.
A text is truthful when every claim in it holds (or it claims nothing: a plan, a condition, a quotation
of someone else), false when any claim in it does not. Instances whose truth the facts do not decide
are skipped (for example a bare "contained" on a run that ended graph_only, or what a principal can actually
reach on an AWS account, where sessions issued before the run may still work).

16 families, every kind of issue 42; 600 sentences over the 11 contexts (313 false, 287 truthful), written by
make_eighth_tsv_test.py to eighth_sentences.tsv with their labels, without calling the checker.
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.helpers.briefing_families import Context, Family, both, paths_at_start, reaches, words

Pairs = Iterator[tuple[str, bool]]

_BANDS = ((80, "critical"), (60, "high"), (30, "medium"), (0, "low"))
_RULES = {
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


def _band(score: int) -> str:
    return next(name for low, name in _BANDS if score >= low)


def _state(c: Context) -> str | None:
    if c.run is None:
        return None
    return str(getattr(c.run.state, "value", c.run.state))


def _graph_only(c: Context) -> bool:
    """A run that ended graph_only: no path in the graph, but the credentials still work on the account, so a
    claim about what someone can actually reach is not decided by the facts (skipped)."""
    return _state(c) == "graph_only"


def _same_as_seeded(c: Context) -> bool:
    """A run that changed nothing in the graph: its path, hop and link facts repeat the seeded context's."""
    return c.run is not None and not c.run.actions and c.ev.path_count > 0


def _aws(c: Context) -> bool:
    return bool(c.arns)


def _done(c: Context) -> bool:
    """Contained without reservation: a run completed and a fresh query finds no qualifying path."""
    return c.ev.path_count == 0 and _state(c) == "completed"


def _blocked_by_run(c: Context) -> list[str]:
    if c.run is None:
        return []
    return [a.route_id for a in c.run.actions if a.status == "applied" and a.verified]


def _revoked(c: Context) -> bool:
    if c.run is None:
        return False
    return any(a.operation.startswith("revoke") and a.applied is True and a.api_verified is True for a in c.run.actions)


def _aws_action(c: Context):
    if c.run is None:
        return None
    return next((a for a in c.run.actions if a.aws is not None), None)


def _key_id(c: Context) -> str:
    a = _aws_action(c)
    if a is None or a.aws is None:
        return ""
    bi = a.aws.plan.before_image
    return str(bi.get("access_key_id", "") if isinstance(bi, dict) else getattr(bi, "access_key_id", ""))


def _label(c: Context, x: str) -> str:
    if x == c.ev.entity_id:
        return c.ev.entity_label
    if x in c.ev.adjacent:
        return c.ev.adjacent[x]
    return next((b.label for b in c.ev.blast_radius if b.id == x), "")


def _assets(c: Context) -> list[str]:
    """Sensitive assets the alert reaches now, or reached before its run (cut off since)."""
    cut = [x for x in c.ev.cut_off_entities if _label(c, x) == "DataAsset" and x in _reached_before(c)]
    return sorted(set(c.ev.assets) | set(cut))


def _reached_before(c: Context) -> set[str]:
    """Assets at the end of a qualifying path at the start of the run (from the run's own steps)."""
    out = {p[-1] for p in c.live}
    if c.run is not None:
        for s in c.run.steps:
            for p in s.data.get("evidence_paths", []) or []:
                out.add(p[-1])
    return out


def _region(c: Context) -> set[str]:
    return set(c.neighbourhood()) | set(c.ev.adjacent) | {c.ev.entity_id}


def _initial_score(c: Context) -> int | None:
    if c.run is None:
        return None
    s = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return int(s.data["risk_score"]) if s is not None and "risk_score" in s.data else None


def _arn_unique(c: Context, x: str) -> str:
    arn = c.arns.get(x, "")
    return arn if arn and list(c.arns.values()).count(arn) == 1 else ""


def _n(x: str, n: int, plural: str = "") -> str:
    return x if n == 1 else (plural or x + "s")


def disp(c: Context, x: str, i: int) -> str:
    """An entity written one of several ways: graph id, plain name, other case, name with id, ARN."""
    name = c.names.get(x, x)
    opts = [f"`{x}`", name, x.upper(), f"{name} ({x})"]
    arn = _arn_unique(c, x)
    if arn:
        opts.append(arn)
    return opts[i % len(opts)]


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def pick(c: Context, options: list[str] | tuple[str, ...], salt: int = 0) -> str:
    """One of several wordings of the same claim, chosen by the context (stable across runs)."""
    return options[(sum(map(ord, c.key)) + salt) % len(options)]


# -- families -------------------------------------------------------------------------------------


def state_summary(c: Context) -> Pairs:
    """Executive-summary headings with a one-paragraph body."""
    ent = disp(c, c.ev.entity_id, 1)
    n = c.ev.path_count
    if _aws(c) and c.run is not None:
        acct = c.run.actions[0].aws.plan.account if _aws_action(c) else ""
        yield from both(
            f"### Account status\nContainment is complete both in the graph and on AWS account {acct}.",
            f"### Account status\nThe block exists in the graph only; it was not applied on AWS account {acct}.",
            c.account_done("key"),
        )
    head = pick(c, ("## Executive summary", "## TL;DR", "### Bottom line", "## Summary for the incident channel"))
    yes = pick(
        c,
        (
            f"Based on a fresh query, {ent} still appears to have at least one qualifying path to high or critical "
            "data, so the alert should be treated as open.",
            f"The latest graph query shows that {ent} can still get to high- or critical-sensitivity data; we are "
            "not out of the woods yet.",
            f"{ent} retains at least one working path to sensitive data according to the most recent investigation.",
        ),
        1,
    )
    no = pick(
        c,
        (
            f"Based on a fresh query, {ent} no longer has any qualifying path to high or critical data.",
            f"The latest graph query finds no qualifying path from {ent} to high- or critical-sensitivity data.",
            f"According to the most recent investigation, {ent} has no remaining path to sensitive data in the graph.",
        ),
        2,
    )
    yield from both(f"{head}\n{yes}", f"{head}\n{no}", n > 0)
    if _state(c) != "graph_only":
        yield from both(
            f"**Overall status:** contained. The containment run for {c.ev.alert_id} completed and a fresh "
            "query found no remaining path.",
            f"**Overall status:** not contained. {c.ev.alert_id} has not been brought to a completed containment yet.",
            _done(c),
        )
    else:
        yield (
            f"**Overall status:** contained. The containment run for {c.ev.alert_id} completed and a fresh "
            "query found no remaining path.",
            False,
        )
    if c.run is not None and paths_at_start(c) > 0 and not _graph_only(c):
        yield from both(
            f"In summary, the response reduced the exposure from {words(paths_at_start(c))} qualifying "
            f"{_n('path', paths_at_start(c))} to none, although analysts may want to keep monitoring {ent}.",
            f"In summary, the exposure has not yet been eliminated: {ent} still has qualifying paths after the run.",
            n == 0,
        )


def state_markers(c: Context) -> Pairs:
    """Emoji, checkbox and strikethrough status lines."""
    n = c.ev.path_count
    st = _state(c)
    if st != "graph_only":
        yield (f"✅ Contained: no qualifying path remains for {c.ev.alert_id}.", _done(c))
    else:
        yield (f"✅ Contained on the AWS account: {c.user}'s key is disabled.", c.account_done("key"))
        yield (f"⚠️ Contained in the graph only: {c.user}'s access key still works in AWS.", not c.account_done("key"))
    if n > 0:
        yield (f"🔴 Exposed: {words(n)} qualifying {_n('path', n)} still open", True)
        yield (f"🔴 Exposed: {words(n + 1)} qualifying paths still open", False)
    else:
        start = paths_at_start(c)  # a bare count: after a block made in the graph only, the paths open on the account
        yield (f"🔴 Exposed: {words(start)} qualifying {_n('path', start)} still open", c.remaining(start))
    if c.run is not None:
        capped = c.run.max_actions == len(c.run.actions) and n > 0
        if st != "graph_only":
            yield ("✅ Contained (cap reached)", _done(c) and capped)
        yield (
            f"⏹️ Stopped (action cap of {words(c.run.max_actions)} reached), {words(n)} {_n('path', n)} still open",
            st == "stopped" and capped,
        )
        yield (f"- [x] Containment run completed for {c.ev.alert_id}", st == "completed")
        if paths_at_start(c) > 0 and st != "graph_only":
            yield ("Status: ~~Exposed~~ **Contained**", _done(c))
    else:
        yield (f"- [x] Containment run completed for {c.ev.alert_id}", False)
        yield (
            f"- [ ] Containment not started yet: the alert is still exposed with {words(n)} open {_n('path', n)}",
            n > 0,
        )


_PHRASES = {
    "completed": "completed: a fresh query found no qualifying path",
    "stopped": "stopped before the alert was contained",
    "graph_only": "ended graph-only: the block holds in the graph but was not applied in AWS",
}


def run_recap(c: Context) -> Pairs:
    """What the run did, restated in prose."""
    if c.run is None:
        yield from both(
            f"No containment run has been carried out for {c.ev.alert_id} so far.",
            f"A containment run has already been carried out for {c.ev.alert_id}.",
            True,
        )
        yield (f"The rules decider already blocked one route for {c.ev.alert_id}.", False)
        return
    st = _state(c)
    rid = c.run.run_id
    for s, phrase in _PHRASES.items():
        if s == st or (st, s) in {("completed", "stopped"), ("stopped", "completed"), ("graph_only", "completed")}:
            yield (f"The containment run {rid} {phrase}.", s == st)
    k = len(c.run.actions)
    yield (f"During the run the {c.run.decider} decider took {words(k)} {_n('action', k)}.", True)
    yield (f"During the run the {c.run.decider} decider took {words(k + 1)} {_n('action', k + 1)}.", False)
    remaining = c.ev.path_count
    yield from both(
        f"The run stopped with {words(remaining)} qualifying {_n('path', remaining)} still open.",
        "The run did not stop with paths still open.",
        st == "stopped" and remaining > 0,
    )
    if st == "stopped":
        yield (
            f"Although the cap allowed {words(c.run.max_actions)} {_n('action', c.run.max_actions)}, "
            f"the run ended after {words(k)} because no active session route carried the remaining paths.",
            k < c.run.max_actions and remaining > 0 and k == 0,
        )


def run_table(c: Context) -> Pairs:
    """An audit-style table: header and one row."""
    head = "| Run | Alert | Decider | Actions | State | Notes |\n|---|---|---|---|---|---|\n"
    if c.run is None:
        h2 = "| Alert | Last run | State | Open paths |\n|---|---|---|---|\n"
        n = c.ev.path_count
        yield (h2 + f"| {c.ev.alert_id} | none | never run | {n} |", True)
        yield (h2 + f"| {c.ev.alert_id} | rules, cap 3 | completed | 0 |", False)
        return
    st = _state(c)
    k = len(c.run.actions)
    note = f"{c.ev.path_count} open after"
    yield (head + f"| {c.run.run_id} | {c.ev.alert_id} | {c.run.decider} | {k} | {st} | {note} |", True)
    other = {"completed": "stopped", "stopped": "completed", "graph_only": "completed"}.get(st or "", "completed")
    yield (head + f"| {c.run.run_id} | {c.ev.alert_id} | {c.run.decider} | {k} | {other} | {note} |", False)
    yield (head + f"| {c.run.run_id} | {c.ev.alert_id} | {c.run.decider} | {k + 2} | {st} | {note} |", False)


def account_claims(c: Context) -> Pairs:
    """Claims about what was done on the AWS account, in prose."""
    u = c.user
    if _same_as_seeded(c):
        return
    if not _aws(c):
        yield (f"{u}'s access key has been deactivated in AWS.", False)
        yield (f"A deny-all inline policy was attached to {u} on the AWS account.", False)
        yield (f"{cap(u)}'s active sessions were revoked on the account as part of the response.", False)
        yield (
            "No change has been made on any AWS account for this alert.",
            not any(a.aws is not None and a.aws.applied_in_aws for a in (c.run.actions if c.run else [])),
        )
        return
    route = _blocked_by_run(c)[0] if _blocked_by_run(c) else c.ev.routes[0].route_id
    yield from both(
        f"{u}'s access key has been deactivated in AWS.",
        f"{u}'s access key has not been deactivated in AWS.",
        c.account_done("key"),
    )
    yield from both(
        f"The block on {route} was not applied in AWS, so {u}'s key still works there.",
        f"The block on {route} was applied in AWS, so {u}'s key no longer works there.",
        not c.account_done("key"),
    )
    yield from both(
        f"A deny-all inline policy was attached to {u}.",
        f"No deny-all policy was attached to {u}; the response did not touch {u}'s policies.",
        c.account_done("policy"),
    )
    yield from both(
        f"Sessions {u} had already obtained were revoked as well.",
        f"Sessions {u} had already obtained were not revoked; they stay valid until they expire.",
        _revoked(c),
    )
    bucket = next((x for x in c.arns if _arn_unique(c, x).startswith("arn:aws:s3:::")), "")
    if bucket:
        yield from both(
            f"Using that access key, {u} can still read objects in {c.arns[bucket]} on the account.",
            f"Using that access key, {u} can't read objects in {c.arns[bucket]} on the account anymore.",
            not c.account_done("key"),
        )
    user_arn = next((a.aws.plan.target.arn for a in (c.run.actions if c.run else []) if a.aws is not None), "")
    if user_arn:
        yield (f"The access key of {user_arn} was set to Inactive through iam:UpdateAccessKey.", c.account_done("key"))


def account_table(c: Context) -> Pairs:
    """A before/after table of account changes with a status column."""
    head = "| Entity | Before | After | Status | Notes |\n|---|---|---|---|---|\n"
    u = c.user
    if _same_as_seeded(c):
        return
    if not _aws(c):
        yield (head + f"| {u} | key active | key inactive | ✅ applied in AWS | iam:UpdateAccessKey |", False)
        yield (head + f"| {u} | — | — | no AWS change | not an imported AWS principal |", True)
        return
    key = _key_id(c)
    done = c.account_done("key")
    yield (head + f"| {u} access key {key} | Active | Inactive | ✅ applied in AWS | iam:UpdateAccessKey |", done)
    yield (
        head + f"| {u} access key {key} | Active | Active | ⚠️ not applied in AWS | blocked in the graph only |",
        not done,
    )
    yield (head + f"| {u} | no inline deny | deny-all inline policy | ✅ attached | |", c.account_done("policy"))
    yield (head + f"| {u} sessions | valid | revoked | ✅ revoked | issued before the run |", _revoked(c))


def count_paths(c: Context) -> Pairs:
    """Counts in words and digits, ranges and percentages."""
    n = c.ev.path_count
    if c.run is not None:
        start = paths_at_start(c)
        cut = start - n
        if start:
            pct = round(100 * cut / start)
            yield (f"The run cut {words(cut)} of {words(start)} qualifying {_n('path', start)} ({pct}%).", True)
            wrong = cut + 1 if cut < start else cut - 1
            yield (
                f"The run cut {wrong} of {start} qualifying {_n('path', start)} ({round(100 * wrong / start)}%).",
                False,
            )
    if n:
        form = pick(
            c,
            (
                "{N} qualifying {paths} to high or critical data {remain} open.",
                "We count {n} open {paths} from the alerted entity to sensitive data.",
                "### Exposure\n{N} {paths} still {lead} to high- or critical-sensitivity assets.",
                "- Open qualifying paths: **{d}**",
            ),
        )

        def said(k: int) -> str:
            return form.format(
                N=cap(words(k)),
                n=words(k),
                d=k,
                paths=_n("path", k),
                remain="remain" if k > 1 else "remains",
                lead="lead" if k > 1 else "leads",
            )

        yield (said(n), True)
        yield (said(n + 1), False)
    else:
        yield from both(  # said of neither the graph nor the account
            "No qualifying path to high or critical data remains open.",
            "At least one qualifying path to high or critical data remains open.",
            c.contained,
        )
    yield (f"Somewhere between {max(0, n - 1)} and {n + 2} paths remain.", True)
    yield (f"Somewhere between {n + 2} and {n + 5} paths remain.", False)
    a = len(c.ev.assets)
    if _aws(c):
        return
    yield (
        f"The open paths reach {words(a)} distinct high or critical {_n('asset', a)}."
        if a
        else "No high or critical asset is reachable any more.",
        True,
    )
    if a:
        yield (f"The open paths reach {words(a + 2)} distinct high or critical assets.", False)


def hops(c: Context) -> Pairs:
    """Path lengths."""
    ent = disp(c, c.ev.entity_id, 0)
    if _same_as_seeded(c):
        return
    if c.live:
        best: dict[str, int] = {}
        for p in c.ev.paths:
            best[p.nodes[-1]] = min(best.get(p.nodes[-1], 99), p.hops)
        for i, (asset, h) in enumerate(sorted(best.items())[:3]):
            a = disp(c, asset, i + 1)
            yield (f"The shortest route from {ent} to {a} takes {words(h)} {_n('hop', h)}.", True)
            yield (f"The shortest route from {ent} to {a} takes {h + 1} hops.", False)
        h = min(p.hops for p in c.ev.paths)  # the shortest open path
        yield from both(
            f"No open path is shorter than {words(h)} {_n('hop', h)}.",
            f"At least one open path is shorter than {words(h)} {_n('hop', h)}.",
            True,
        )
    else:
        yield from both(  # six hops is every qualifying path: said of neither the graph nor the account
            f"No qualifying path of six hops or fewer remains from {ent}.",
            f"A qualifying path of six hops or fewer still remains from {ent}.",
            c.contained,
        )
        for i, asset in enumerate([] if _aws(c) else _assets(c)[:2]):
            yield (f"{cap(disp(c, c.ev.entity_id, i + 1))} still reaches {disp(c, asset, i)} within six hops.", False)


def links(c: Context) -> Pairs:
    """Relationships between two named entities, including denied and blocked ones."""
    region = _region(c)
    if _same_as_seeded(c):
        return
    found = []
    for s, t, d, props in c.edges:
        if t == "HAS_SESSION" and _graph_only(c):
            continue  # blocked in the graph, the key still active on the account
        if s in region and d in region and t in ("CAN_ASSUME", "CAN_READ", "RUNS_AS", "HAS_SESSION"):
            found.append((s, t, d, props))
    denied = [e for e in found if e[3].get("permission") == "deny" or e[3].get("status") == "blocked"]
    plain = [e for e in found if e not in denied]
    pick = denied[:2] + plain[:2]
    verbs = {
        "CAN_ASSUME": ("can assume {b} directly", "cannot assume {b} directly"),
        "CAN_READ": ("has working read access to {b}", "has no working read access to {b}"),
        "RUNS_AS": ("runs as {b}", "does not run as {b}"),
        "HAS_SESSION": ("has an active session {b}", "has no active session {b}"),
    }
    for i, (s, t, d, props) in enumerate(pick):
        a, b = disp(c, s, i), disp(c, d, i + 1)
        pos, neg = verbs[t]
        yield from both(f"{cap(a)} {pos.format(b=b)}.", f"{cap(a)} {neg.format(b=b)}.", c.edge_works(s, t, d))
        if props.get("permission") == "deny":
            yield (f"The grant for {a} on {b} is explicitly denied in the graph.", True)
    # a reversed pair, which has no relationship at all
    for s, t, d, _ in plain[:2]:
        if t in ("CAN_ASSUME", "CAN_READ") and not c.edge(d, t, s) and _label(c, s) != "DataAsset":
            if t == "CAN_ASSUME":
                yield (f"{cap(disp(c, d, 0))} can assume {disp(c, s, 0)} directly.", c.edge_works(d, t, s))
            break


def through(c: Context) -> Pairs:
    """Which entities the open paths pass through."""
    live = c.live
    if _same_as_seeded(c):
        return
    seen = sorted({n for p in live for n in p[1:-1]})
    extra = [x for x in c.ev.cut_off_entities if x != c.ev.entity_id and _label(c, x) != "DataAsset"][:2]
    for i, x in enumerate((seen[:3] + extra)[:4]):
        name = disp(c, x, i)
        allin = bool(live) and all(x in p for p in live)
        if len(live) >= 2:
            yield from both(
                f"{'Both' if len(live) == 2 else 'All ' + words(len(live))} remaining paths run through {name}.",
                f"Not every remaining path runs through {name}.",
                allin,
            )
        elif len(live) == 1:
            yield from both(
                f"The only remaining path passes through {name}.",
                f"The only remaining path avoids {name}.",
                allin,
            )
        else:
            yield from both(
                f"{cap(name)} no longer sits on any open qualifying path.",
                f"{cap(name)} still sits on an open qualifying path.",
                True,
            )
    # "A assumes B on the way to X"
    for p in c.ev.paths[:2]:
        for j, rel in enumerate(p.relationships):
            if rel == "CAN_ASSUME":
                a, b, asset = p.nodes[j], p.nodes[j + 1], p.nodes[-1]
                yield (f"On the way to {disp(c, asset, 1)}, {disp(c, a, 0)} assumes {disp(c, b, 0)}.", True)
                yield (f"On the way to {disp(c, asset, 1)}, {disp(c, b, 0)} assumes {disp(c, a, 0)}.", False)
                break


def routes(c: Context) -> Pairs:
    """Route status in tables, strikethrough and prose."""
    head = "| Route | Before | After | Status | Notes |\n|---|---|---|---|---|\n"
    mine = set(_blocked_by_run(c))
    where = " in the graph" if _aws(c) else ""
    rs = sorted(c.ev.routes, key=lambda r: (r.route_id not in mine, r.route_id))
    note = ""
    if _aws(c):
        note = "key deactivated in AWS" if c.account_done("key") else "in the graph only, not applied in AWS"
    for i, r in enumerate(rs[:3]):
        now = r.status
        before = "active" if r.route_id in mine else now
        flip = "active" if now == "blocked" else "blocked"
        mark = "🔒 blocked" if now == "blocked" else "🟢 open"
        wmark = "🔒 blocked" if flip == "blocked" else "🟢 open"
        if c.run is not None and i == 0:
            yield (head + f"| {r.route_id} | {before} | {now} | {mark} | {note} |", True)
            yield (head + f"| {r.route_id} | {before} | {flip} | {wmark} | {note} |", False)
            yield (f"- {r.route_id}: ~~active~~ **blocked**{where} by this run", r.route_id in mine)
        else:
            yield from both(
                f"Route {r.route_id} has been blocked{where}.",
                f"Route {r.route_id} is still active{where}.",
                now == "blocked",
            )
    if not c.ev.routes:
        yield from both(
            "None of the open paths passes through a session route that could be blocked.",
            "Every open path passes through a session route that could be blocked.",
            True,
        )


def score(c: Context) -> Pairs:
    """Risk score, band, ranges, factors and change."""
    s, band = c.ev.risk_score, c.ev.severity
    if not _same_as_seeded(c):  # a run that changed nothing: only the change (none) is new
        yield (f"The alert currently scores {s} ({band}) under {c.ev.rule_set}.", True)
        w = min(100, s + 15)
        yield (f"The alert currently scores {w} ({_band(w)}) under {c.ev.rule_set}.", False)
    first = _initial_score(c)
    if first is not None:
        if first != s:
            yield (f"After the run the score dropped from {first} to {s}.", True)
            yield (f"After the run the score is unchanged at {first}.", False)
        else:
            yield (f"After the run the score is unchanged at {s}.", True)
            yield (f"After the run the score dropped from {s} to {max(0, s - 20)}.", False)
    if _same_as_seeded(c):
        return
    fired = {f.rule: f.points for f in c.ev.factors}
    for rule, pts in list(fired.items())[:1]:
        yield (f"The {rule} rule contributed {pts} points.", True)
    missing = [
        r for r in _RULES if r not in fired and not (r.startswith("E1") and any(f.startswith("E1") for f in fired))
    ]
    if missing:
        r = missing[0]
        yield (f"The {r} rule also fired, adding {_RULES[r]} points.", False)
    yield (f"With a risk score of {words(s)}, the alert sits in the {band} band.", True)
    other = "critical" if band != "critical" else "low"
    yield (f"The alert's severity is {other}.", False)
    yield (f"Its score lies between {max(0, s - 5)} and {s + 5}.", True)
    yield (f"Its score lies between {s + 10} and {s + 20}.", False)


def names(c: Context) -> Pairs:
    """Reachability between the alert's entity and its assets, each written by id, name, case or ARN."""
    ent = c.ev.entity_id
    if _aws(c) or _same_as_seeded(c):  # on an account, sessions already issued may still reach the data
        return
    for i, asset in enumerate(_assets(c)[:3]):
        r = reaches(c, ent, asset)
        yield from both(
            f"{cap(disp(c, ent, i))} can still reach {disp(c, asset, i + 1)}.",
            f"{cap(disp(c, ent, i + 2))} can no longer reach {disp(c, asset, i + 3)}.",
            r,
        )
    # an intermediate entity by plain name
    mids = sorted({n for p in c.live for n in p[1:-1]}) or [
        x for x in c.ev.cut_off_entities if x != ent and _label(c, x) not in ("DataAsset", "")
    ]
    for j, m in enumerate(mids[:2]):
        asset = (_assets(c) or [""])[0]
        if asset:
            yield (f"{cap(disp(c, m, j + 1))} is still on an open path to {disp(c, asset, j)}.", reaches(c, m, asset))


def modal(c: Context) -> Pairs:
    """Conditionals, hypotheticals, recommendations and hedges: only what they assert is claimed."""
    n = c.ev.path_count
    st = _state(c)
    if not _same_as_seeded(c):
        yield (
            "If a blocked route were released later, the alert would need a fresh investigation before anyone "
            "calls it contained.",
            True,
        )
    if c.run is None:
        yield (
            f"Should the analyst decide to contain it, the rules decider would propose a route; for now "
            f"{words(n)} qualifying {_n('path', n)} {'are' if n != 1 else 'is'} open.",
            True,
        )
        yield (
            "Should the analyst decide to contain it, the rules decider would propose a route; for now "
            "no qualifying path is open.",
            n == 0,
        )
    else:
        said = "ended graph-only" if st == "graph_only" else st
        yield (f"Had the cap been higher, the outcome might have differed; as it stands, the run {said}.", True)
        wrong = "completed" if st != "completed" else "stopped"
        yield (f"Had the cap been higher, the outcome might have differed; as it stands, the run {wrong}.", False)
        if _same_as_seeded(c):
            return
    ent = disp(c, c.ev.entity_id, 2)
    for r in [] if _aws(c) else c.ev.routes[:1]:  # on an account, sessions already issued keep working
        carried = any(r.source in p and r.target in p and p.index(r.target) == p.index(r.source) + 1 for p in c.live)
        yield from both(
            f"An attacker using {ent}'s credentials could, via {r.route_id}, still reach sensitive data.",
            f"An attacker using {ent}'s credentials could no longer reach sensitive data via {r.route_id}.",
            carried,
        )
    yield from both(
        f"It appears that {disp(c, c.ev.entity_id, 1)} most likely still has a working path to sensitive data in the graph.",
        f"It appears that {disp(c, c.ev.entity_id, 1)} no longer has a working path to sensitive data in the graph.",
        n > 0,
    )
    yield ("We recommend reviewing the remaining candidates before taking any further action.", True)


def quotation(c: Context) -> Pairs:
    """Third-party quotes (no claim) beside the briefing's own claims, and verdicts in quotes (a claim)."""
    ent = disp(c, c.ev.entity_id, 1)
    n = c.ev.path_count
    assets = _assets(c)
    st = _state(c)
    if st is not None:
        for s in ("completed", "stopped", "graph_only"):
            if s == st or (st, s) in {("completed", "stopped"), ("stopped", "completed"), ("graph_only", "completed")}:
                yield (f'BlastShield\'s verdict for run {c.run.run_id} is "{s}".', s == st)
    else:
        yield (f'BlastShield\'s verdict for {c.ev.alert_id} is "contained".', False)
    if assets:
        yield (
            f'> "Your access to {disp(c, assets[0], 1)} has been suspended. Click here to restore it."\n'
            f"(text of the phishing message {ent} received)",
            True,
        )
    yield from both(
        f'The requester wrote "nothing is reachable any more"; the fresh query shows {words(n)} open qualifying '
        f"{_n('path', n)}.",
        f'The requester wrote "nothing is reachable any more"; the fresh query shows {words(n + 1)} open qualifying '
        f"{_n('path', n + 1)}.",
        True,
    )
    yield (f'The help-desk ticket reads: "all of {ent}\'s sessions were killed this morning."', True)


def coordination(c: Context) -> Pairs:
    """Neither/nor, both/and, either/or and contractions over routes, or over assets when no route is listed."""
    if _same_as_seeded(c):
        return
    mine = set(_blocked_by_run(c))
    rs = sorted(c.ev.routes, key=lambda r: (r.route_id not in mine, r.paths_carried == 0, r.route_id))
    where = " in the graph" if _aws(c) else ""
    if len(rs) >= 2:
        a, b = rs[0], rs[1]
        act = [a.status == "active", b.status == "active"]
        yield (f"Neither {a.route_id} nor {b.route_id} has been blocked{where}.", act[0] and act[1])
        yield (f"Both {a.route_id} and {b.route_id} are blocked{where} now.", not act[0] and not act[1])
        if sum(act) == 1:
            yield (f"Only one of {a.route_id} and {b.route_id} is still active{where}.", True)
        yield (f"{a.route_id} isn't blocked yet{where}.", act[0])
        yield (f"{b.route_id} hasn't been touched: it's still active{where}.", act[1])
    elif len(rs) == 1:
        r = rs[0]
        yield (f"{r.route_id} isn't blocked{where}; it's still active.", r.status == "active")
        yield (
            f"{r.route_id} is blocked{where} and it isn't carrying any qualifying path now.",
            r.status == "blocked" and not c.live,
        )
    ent = c.ev.entity_id
    assets = _assets(c)
    if len(assets) >= 2 and not _aws(c):
        x, y = assets[0], assets[1]
        rx, ry = reaches(c, ent, x), reaches(c, ent, y)
        yield (
            f"Neither {disp(c, x, 1)} nor {disp(c, y, 2)} is reachable from {disp(c, ent, 0)} anymore.",
            not rx and not ry,
        )
        yield (f"{cap(disp(c, ent, 1))} can reach both {disp(c, x, 0)} and {disp(c, y, 0)}.", rx and ry)
    elif len(assets) == 1 and not _aws(c):
        x = assets[0]
        yield (f"{cap(disp(c, ent, 1))} can't reach {disp(c, x, 2)} anymore.", not reaches(c, ent, x))


FAMILY_LIST = [
    ("h8.state.summary", "state", state_summary),
    ("h8.state.markers", "state", state_markers),
    ("h8.run.recap", "run", run_recap),
    ("h8.run.table", "run", run_table),
    ("h8.account.claims", "account", account_claims),
    ("h8.account.table", "account", account_table),
    ("h8.count.paths", "count", count_paths),
    ("h8.hops.lengths", "hops", hops),
    ("h8.link.pairs", "link", links),
    ("h8.through.paths", "through", through),
    ("h8.route.table", "route", routes),
    ("h8.route.coordination", "route", coordination),
    ("h8.score.figures", "score", score),
    ("h8.name.reach", "name", names),
    ("h8.modal.hedges", "modal", modal),
    ("h8.quotation.quotes", "quotation", quotation),
]

PER_CONTEXT = 4  # at most this many sentences of one family in one context (8 for the account families)


def _capped(make, n: int):
    def capped(c: Context) -> Pairs:
        yield from list(make(c))[:n]

    return capped


EIGHTH: list[Family] = [
    Family(name, kind, _capped(make, {"account": 11, "quotation": 5}.get(kind, PER_CONTEXT)))
    for name, kind, make in FAMILY_LIST
]
