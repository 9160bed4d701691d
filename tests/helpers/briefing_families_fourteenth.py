"""The fourteenth held-out set (h14.*): an incident Slack channel and a public status page.

Written for issue 42 by someone who has not seen the briefing checker's rules, its documentation or any
earlier family module (only tests/helpers/briefing_families.py: Context, Family, both, words, pairs,
reaches, on_paths, paths_at_start, generate). Every label is computed from the context's facts (the fresh
evidence `c.ev`, the run record `c.run`, the exported relationships `c.edges`), never typed by hand.

Style: short chat messages with @mentions and reactions, a bot posting key=value or YAML-like status
dumps, threaded replies that correct an earlier message, all-caps urgency, checklists, markdown tables
with a status column, and formal status-page paragraphs for stakeholders.

Conventions (each sentence is labelled by them):
- A hedged claim ("probably X", "I think X", "pretty sure X") claims X.
- A quotation of a third party (a phishing text, a vendor's ticket, a customer's post) claims nothing;
  the words around it that are the writer's own are claims as usual.
- A question claims nothing; its answer ("is R blocked? yes") does.
- A plan ("next: block R", "plan: ...") claims nothing of its own; a clause attached to it that states a
  fact ("...; right now 2 paths are open") is a claim.
- A conditional or hypothetical claims only what it asserts: "if we block R, one path would remain" is a
  what-if claim (true when exactly one live path avoids R's relationship); "it would count as contained
  only after a fresh query finds no path" claims nothing.
- A checklist item "[x] X" claims X was done; "[ ] X" claims X was not done (yet). Routes that were
  already blocked before the run (by the scenario) are never put in a checklist, since "not done" would
  be ambiguous for them.
- A markdown table row claims its cells about the row's subject; "~~active~~ **blocked**" claims blocked.
- After a run that ended graph_only on the AWS account, the paths are gone from the graph but still open
  on the account (the key still works): a bare "the alert is contained" is false there, while "no
  qualifying path in the graph" is true. Claims about the AWS contexts therefore say "in the graph" or
  "in AWS / on the account" whenever the two differ.
- "Contained" (bare) is true when a fresh query finds no qualifying path and the run ended completed.
- "Qualifying path" means a live path to a high or critical asset, as the evidence lists them; reach
  claims use that wording (or "can still reach", on contexts where the live paths decide it) so that a
  low-sensitivity asset reachable in the blast radius never makes a sentence ambiguous.
- An instance the facts do not decide is skipped; only entities of the context are named.

Each family writes its instances as claim/negation pairs (or a claimless sentence beside a claim); `picked`
keeps a few pairs per context (the first ones always, the others in turn from context to context), so that
the set stays between 300 and 600 sentences while every template is used somewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from tests.helpers.briefing_families import Context, Family, both, on_paths, paths_at_start, reaches, words

__all__ = ["FOURTEENTH"]

Pair = tuple[str, bool]


# -- facts ------------------------------------------------------------------------------------------


def _state(c: Context) -> str:
    return "none" if c.run is None else str(c.run.state)


def _aws(c: Context) -> bool:
    return bool(c.arns)


def _graph_only(c: Context) -> bool:
    return _state(c) == "graph_only"


def _contained(c: Context) -> bool:
    """A bare "contained": no qualifying path on a fresh query, and the run completed."""
    return c.ev.path_count == 0 and c.ev.status == "no_path" and _state(c) == "completed"


def _key_off(c: Context) -> bool:
    return c.account_done("key")


def _policy_on(c: Context) -> bool:
    return c.account_done("policy")


def _revoked(c: Context) -> bool:
    if c.run is None:
        return False
    return any(
        a.candidate_id.startswith("revoke-sessions") and a.status == "applied" and bool(a.applied)
        for a in c.run.actions
    )


def _not_applied_in_aws(c: Context) -> bool:
    if c.run is None:
        return False
    return any(a.aws is not None and a.aws.applied_in_aws is False for a in c.run.actions)


def _blocked_by_run(c: Context) -> list[str]:
    if c.run is None:
        return []
    return [a.route_id for a in c.run.actions if a.status == "applied" and a.route_id]


def _label(c: Context, i: str) -> str:
    if i == c.ev.entity_id:
        return c.ev.entity_label
    if i in c.ev.adjacent:
        return str(c.ev.adjacent[i])
    return next((e.label for e in c.ev.blast_radius if e.id == i), "")


def _start_assets(c: Context) -> list[str]:
    """The high/critical assets the alert's paths reached before the run (the live ones when there is no run)."""
    found = set(c.ev.assets)
    if c.run is not None:
        found |= {i for i in c.ev.cut_off_entities if _label(c, i) == "DataAsset"}
    return sorted(found)


def _other_assets(c: Context) -> list[str]:
    """Data assets next to the alert's paths that no qualifying path reaches (denied, low, or elsewhere)."""
    start = set(_start_assets(c))
    return sorted(i for i, label in c.ev.adjacent.items() if label == "DataAsset" and i not in start)


def _ent(c: Context) -> str:
    return c.ev.entity_id


def _hops_to(c: Context, asset: str) -> list[int]:
    return sorted(len(p) - 1 for p in c.live if p[-1] == asset)


def _remaining_if_blocked(c: Context, source: str, target: str) -> int:
    return sum(1 for p in c.live if not any((p[i], p[i + 1]) == (source, target) for i in range(len(p) - 1)))


def _other_state(s: str) -> str:
    return {"completed": "stopped", "stopped": "completed", "graph_only": "completed", "none": "completed"}[s]


# -- names ------------------------------------------------------------------------------------------


def _plain(c: Context, i: str) -> str:
    name = c.names.get(i, "")
    return name if name and list(c.names.values()).count(name) == 1 else i


def _show(c: Context, i: str, k: int) -> str:
    """An entity by graph id, plain name, upper-case id or ARN, in turn (AWS ids are shown by name or ARN)."""
    if _aws(c):
        arn = c.arns.get(i, "")
        unique = bool(arn) and list(c.arns.values()).count(arn) == 1
        forms = [_plain(c, i), arn if unique or i == c.ev.entity_id else i, i, _plain(c, i).upper()]
    else:
        forms = [i, _plain(c, i), i.upper(), i]
    return forms[k % len(forms)]


def _w(n: int, k: int) -> str:
    """A number in words or in digits, in turn."""
    return words(n) if k % 2 == 0 else str(n)


def _paths(n: int) -> str:
    return "path" if n == 1 else "paths"


_ORDER = (
    "BH-1042/exposed",
    "BH-IAM-2001/exposed",
    "BH-WORKLOAD-3001/exposed",
    "BH-CONTAINMENT-4001/exposed",
    "BH-1042/after-run",
    "BH-IAM-2001/after-run",
    "BH-WORKLOAD-3001/after-run",
    "BH-CONTAINMENT-4001/after-run",
    "BH-CONTAINMENT-4001/capped",
    "aws/graph-only",
    "aws/applied",
)


def _index(c: Context) -> int:
    return _ORDER.index(c.key) if c.key in _ORDER else sum(map(ord, c.key))


Make = Callable[[Context], Iterable[Pair]]


def picked(n: int | Callable[[Context], int], fixed: int = 1) -> Callable[[Make], Callable[[Context], list[Pair]]]:
    """At most n pairs of a context: the first `fixed` always, the others in turn from context to context
    (so that every template is used somewhere without every context getting every one)."""

    def wrap(make: Make) -> Callable[[Context], list[Pair]]:
        def inner(c: Context) -> list[Pair]:
            items = list(make(c))
            assert len(items) % 2 == 0, (make.__name__, c.key)
            groups = [items[i : i + 2] for i in range(0, len(items), 2)]
            head, rest = groups[:fixed], groups[fixed:]
            if rest:
                k = (_index(c) + sum(map(ord, make.__name__))) % len(rest)
                rest = rest[k:] + rest[:k]
            most = n(c) if callable(n) else n
            return [t for g in (head + rest)[:most] for t in g]

        inner.__name__ = make.__name__
        inner.__doc__ = make.__doc__
        return inner

    return wrap


# -- families ---------------------------------------------------------------------------------------


@picked(2)
def bot_dump(c: Context) -> Iterator[Pair]:
    """The bot's key=value and YAML-like dumps of the alert's state."""
    aid, n = c.ev.alert_id, c.ev.path_count
    s = _state(c)
    if _graph_only(c):
        yield from both(
            f"`bs-bot` alert={aid} run_state=graph_only graph_paths=0 applied_in_aws=false",
            f"`bs-bot` alert={aid} state=contained applied_in_aws=true",
            True,
        )
    else:
        word = "contained" if _contained(c) else "exposed"
        other = "exposed" if _contained(c) else "contained"
        yield from both(
            f"`bs-bot` alert={aid} state={word} paths={n}", f"`bs-bot` alert={aid} state={other} paths={n}", True
        )
        wrong = n + 1 if n < 2 else n - 1
        yield (f"`bs-bot` {aid}: qualifying_paths={n} truncated=false", True)
        yield (f"`bs-bot` {aid}: qualifying_paths={wrong} truncated=false", False)
    if _graph_only(c):
        yield (f"⚠️ {aid}: blocked in the graph only, {c.user}'s key still active in AWS", True)
        yield (f"✅ {aid}: contained", False)
    elif _contained(c):
        yield (f"✅ {aid}: contained, 0 paths", True)
        yield (f"🔴 {aid}: exposed", False)
    else:
        yield (f"🔴 {aid}: exposed, {n} {_paths(n)} open", True)
        yield (f"✅ {aid}: contained", False)
    yield (f"bot:\n```\nalert: {aid}\nrun: {s}\nseverity: {c.ev.severity}\n```", True)
    yield (f"bot:\n```\nalert: {aid}\nrun: {_other_state(s)}\nseverity: {c.ev.severity}\n```", False)


@picked(2)
def yaml_routes(c: Context) -> Iterator[Pair]:
    """Route status dumps, one route a line."""
    done = set(_blocked_by_run(c))
    for k, r in enumerate(c.ev.routes[:3]):
        rid = r.route_id
        if _aws(c):
            if _graph_only(c):
                yield (f"`{rid}: {{status: blocked, scope: graph_only, aws_key: Active}}`", True)
                yield (f"`{rid}: {{status: blocked, applied_in_aws: true, aws_key: Inactive}}`", False)
            else:
                yield (f"`{rid}: {{status: blocked, applied_in_aws: true, aws_key: Inactive}}`", True)
                yield (f"`{rid}: {{status: blocked, scope: graph_only, aws_key: Active}}`", False)
            continue
        flip = "active" if r.status == "blocked" else "blocked"
        if k % 2 == 0:
            yield from both(f"{rid}: {{status: {r.status}}}", f"{rid}: {{status: {flip}}}", True)
        else:
            yield from both(
                f"```\n{rid}:\n  status: {r.status}\n  paths_carried: {r.paths_carried}\n```",
                f"```\n{rid}:\n  status: {flip}\n  paths_carried: {r.paths_carried}\n```",
                True,
            )
        if k == 0 and (rid in done or r.paths_carried):
            yield (f"{rid} -> paths_carried={r.paths_carried}", True)
            yield (f"{rid} -> paths_carried={r.paths_carried + 1}", False)


@picked(2)
def correction(c: Context) -> Iterator[Pair]:
    """Threaded replies that correct an earlier message."""
    aid, n = c.ev.alert_id, c.ev.path_count
    wrong = n + 1 if n <= 1 else n - 1
    where = " in the graph" if _aws(c) else ""
    yield (f"↳ correction: {aid} has {_w(n, 0)} qualifying {_paths(n)} open{where} right now, not {_w(wrong, 0)}", True)
    yield (
        f"↳ correction: {aid} has {_w(wrong, 1)} qualifying {_paths(wrong)} open{where} right now, not {_w(n, 1)}",
        False,
    )
    s = _state(c)
    if _aws(c):
        yield from both(
            f"correction: the block on {c.user}'s key was NOT applied in AWS, only in the graph",
            f"correction: the block on {c.user}'s key was applied in AWS, not just in the graph",
            _not_applied_in_aws(c),
        )
    if s == "none":
        yield from both(
            f"correction to my msg above: nobody has run containment on {aid} yet",
            f"correction to my msg above: a containment run on {aid} already finished",
            True,
        )
        return
    other = _other_state(s)
    shown = {"graph_only": "ended graph_only", "completed": "completed", "stopped": "stopped"}
    yield (f"correction: the run on {aid} {shown[s]}, it did not end {other}", True)
    yield (f"correction: the run on {aid} {shown.get(other, other)}, it did not end {s}", False)
    k = len(_blocked_by_run(c))
    kw = k + 1 if k < 2 else k - 1
    yield (f"^ correction: the run blocked {_w(k, 1)} route{'s' if k != 1 else ''}{where}, not {_w(kw, 1)}", True)
    yield (f"^ correction: the run blocked {_w(kw, 0)} route{'s' if kw != 1 else ''}{where}, not {_w(k, 0)}", False)


@picked(2)
def allcaps(c: Context) -> Iterator[Pair]:
    """All-caps urgency."""
    aid, e = c.ev.alert_id, _ent(c)
    if _aws(c):
        yield from both(
            f"🚨 {c.user.upper()}'S ACCESS KEY STILL WORKS IN AWS!!",
            f"{c.user.upper()}'S ACCESS KEY IS DEAD IN AWS",
            not _key_off(c),
        )
        if _graph_only(c):
            yield from both(
                f"URGENT: {aid} IS NOT CONTAINED ON THE ACCOUNT, ONLY IN THE GRAPH",
                f"UPDATE: {aid} IS FULLY CONTAINED",
                True,
            )
        else:
            yield from both(f"UPDATE: {aid} IS CONTAINED", f"URGENT: {aid} IS STILL NOT CONTAINED", _contained(c))
        return
    yield from both(f"UPDATE: {aid} IS CONTAINED", f"URGENT!!! {aid} IS NOT CONTAINED YET", _contained(c))
    for a in _start_assets(c)[:2]:
        yield from both(
            f"🚨 {_show(c, e, 2)} CAN STILL REACH {a.upper()} — ESCALATE",
            f"ALL CLEAR: {_show(c, e, 2)} CAN NO LONGER REACH {a.upper()}",
            reaches(c, e, a),
        )


@picked(1)
def statuspage(c: Context) -> Iterator[Pair]:
    """Formal status-page paragraphs for stakeholders."""
    aid, n, s = c.ev.alert_id, c.ev.path_count, _state(c)
    who = c.user if _aws(c) else _plain(c, _ent(c))
    top = f"## Incident update — {aid}\n" if _index(c) % 2 else ""
    head = f"{top}We have identified suspicious activity associated with {who} (alert {aid})"
    remain = lambda k: "remains" if k == 1 else "remain"  # noqa: E731
    if s == "none":
        yield (
            f"{head} and are investigating. No containment action has been taken yet, and {_w(n, 0)} "
            f"qualifying {_paths(n)} to sensitive data {remain(n)} open.",
            True,
        )
        yield (
            f"{head} and have taken steps to contain it: the access routes involved have been blocked, "
            "and no path to sensitive data remains.",
            False,
        )
        return
    blocked = _blocked_by_run(c)
    if _aws(c):
        if _graph_only(c):
            yield (
                f"{head}. The credential has been blocked in our access graph; this change has not been "
                f"applied in AWS, and {c.user}'s access key remains active on the account.",
                True,
            )
            yield (f"{head} and have disabled the affected access key in AWS. The incident is contained.", False)
        else:
            yield (
                f"{head} and have deactivated {c.user}'s access key in AWS. The change was verified on the "
                "account, and no qualifying path to sensitive data remains.",
                True,
            )
            yield (
                f"{head}. The credential has been blocked in our access graph only; this change has not "
                "been applied in AWS.",
                False,
            )
        return
    start = paths_at_start(c)
    if s == "completed":
        many = len(blocked) != 1
        yield (
            f"{head} and have taken steps to contain it: {_w(len(blocked), 1)} access route{'s' if many else ''} "
            f"({', '.join(blocked)}) {'were' if many else 'was'} blocked, and a fresh check found no remaining "
            "path to sensitive data. This incident is contained.",
            True,
        )
        yield (
            f"{head}. Containment is still in progress; {_w(start, 0)} {_paths(start)} to sensitive data "
            f"{remain(start)} open.",
            False,
        )
        return
    if blocked:  # stopped after some actions
        active = [r.route_id for r in c.ev.routes if r.status == "active" and r.paths_carried]
        yield (
            f"{head}. We blocked {', '.join(blocked)}, but the automated response stopped at its action "
            f"limit; {_w(n, 0)} {_paths(n)} to {', '.join(c.ev.assets)} {remain(n)} open and we are "
            "continuing to work on it.",
            True,
        )
        yield (
            f"{head}. We blocked {', '.join(blocked + active[:1])}, and no path to sensitive data remains. "
            "This incident is resolved.",
            False,
        )
    else:
        yield (
            f"{head}. An automated containment run stopped without blocking any route; all {_w(n, 1)} "
            f"{_paths(n)} to sensitive data {remain(n)} open while we review.",
            True,
        )
        yield (
            f"{head}. An automated containment run blocked the access involved, and the issue has been resolved.",
            False,
        )


@picked(6)
def account_chat(c: Context) -> Iterator[Pair]:
    """Chat about what was done on the AWS account."""
    if not _aws(c):
        return
    u = c.user
    arn = c.arns.get(_ent(c), u)
    key_off = _key_off(c)
    yield from both(
        f"@ir-oncall {u}'s access key is disabled in AWS ✅",
        f"@ir-oncall heads up, {u}'s access key is still active in AWS 👀",
        key_off,
    )
    yield from both(
        f"deny-all inline policy attached to {arn} 👍", f"no deny-all policy has been attached to {u}", _policy_on(c)
    )
    yield from both(
        f"{u}'s sessions were revoked on the account :lock:",
        f"{u}'s existing sessions have NOT been revoked",
        _revoked(c),
    )
    yield from both(
        f"fyi the block on {u}'s key was not applied in AWS (graph only) :warning:",
        f"fyi the block on {u}'s key was applied in AWS, not just in the graph",
        _not_applied_in_aws(c),
    )
    yield from both(
        "UpdateAccessKey went through and the read-back says Inactive :white_check_mark:",
        "the UpdateAccessKey call was never sent to the account",
        key_off,
    )
    yield from both(
        f"@{u} can't use that key anymore, requests signed with it fail :+1:",
        f"requests signed with @{u}'s key still go through on the account",
        key_off,
    )


@picked(2)
def checklist(c: Context) -> Iterator[Pair]:
    """Checklist items: [x] done, [ ] not done (yet)."""
    done = set(_blocked_by_run(c))
    s = _state(c)
    aid = c.ev.alert_id
    if _aws(c):
        u = c.user
        key = f"deactivate {u}'s access key in AWS"
        yield from both(f"- [x] {key}", f"- [ ] {key}", _key_off(c))
        yield from both(
            f"- [x] containment run started for {aid}", f"- [ ] containment run started for {aid}", s != "none"
        )
        yield from both(f"- [x] revoke {u}'s sessions", f"- [ ] revoke {u}'s sessions", _revoked(c))
        yield from both(f"- [x] block {u}'s key in the graph", f"- [ ] block {u}'s key in the graph", bool(done))
        fresh = "fresh query shows zero paths in the graph"
        yield from both(f"- [x] {fresh}", f"- [ ] {fresh}", c.ev.path_count == 0)
        return
    yield from both(f"- [x] containment run started for {aid}", f"- [ ] containment run started for {aid}", s != "none")
    for r in c.ev.routes:
        if r.status == "blocked" and r.route_id not in done:
            continue  # blocked before the run: "not done" would be ambiguous
        yield from both(f"- [x] block {r.route_id}", f"- [ ] block {r.route_id}", r.route_id in done)
    yield from both(
        "- [x] fresh query confirms zero qualifying paths",
        "- [ ] fresh query confirms zero qualifying paths",
        s != "none" and c.ev.path_count == 0,
    )


@picked(2)
def hops(c: Context) -> Iterator[Pair]:
    """Hop counts of the live paths."""
    if not c.live:
        return
    e = _ent(c)
    lengths = sorted(len(p) - 1 for p in c.live)
    lo, hi = lengths[0], lengths[-1]
    yield (f"shortest path is {lo} hops", True) if lo != 1 else ("shortest path is a single hop", True)
    yield (f"shortest path is {_w(lo + 1, 0)} hops", False)
    if hi != lo:
        yield (f"longest open path: {_w(hi, 0)} hops", True)
        yield (f"longest open path: {hi + 1} hops", False)
    for k, a in enumerate(sorted({p[-1] for p in c.live})[:3]):
        hs = _hops_to(c, a)
        h = hs[0]
        shown = _show(c, a, k + 1)
        if len(set(hs)) == 1:
            yield (f"{shown} is {_w(h, k)} {'hop' if h == 1 else 'hops'} out from {_show(c, e, k)}", True)
            yield (f"{shown} is {_w(h + 1, k)} hops out from {_show(c, e, k)}", False)
        else:
            yield (f"the shortest way into {shown} is a {h}-hop chain", True)
            yield (f"the shortest way into {shown} is a {h + 2}-hop chain", False)


@picked(lambda c: 1 if _aws(c) else 2)
def score(c: Context) -> Iterator[Pair]:
    """Risk score, severity and the rule points."""
    s, sev, aid = c.ev.risk_score, str(c.ev.severity), c.ev.alert_id
    wrong = s + 10 if s < 90 else s - 10
    yield (f"`bs-bot` {aid} risk={s} sev={sev}", True)
    yield (f"`bs-bot` {aid} risk={wrong} sev={sev}", False)
    yield (f"{aid} scores somewhere between {max(0, s - 5)} and {s + 5}", True)
    yield (f"{aid} scores somewhere between {s + 6} and {s + 15}", False)
    other = {"low": "high", "medium": "low", "high": "medium", "critical": "low"}[sev]
    yield from both(f"severity on {aid}: {sev.upper()}", f"severity on {aid}: {other.upper()}", True)
    yield (f"{aid} is scored {words(s)} under {c.ev.rule_set}", True)
    yield (f"{aid} is scored {words(wrong)} under {c.ev.rule_set}", False)
    critical = any(str(f.rule).startswith("E1") for f in c.ev.factors)
    yield from both(
        f"{aid}'s score includes the +20 for reaching critical data",
        f"no points for critical reach in {aid}'s score",
        critical,
    )


def _link_pairs(c: Context) -> list[tuple[str, str, str]]:
    """Relationships near the alert, the denied and blocked ones first, then allowed ones, then a reversed
    role-to-role pair that has no relationship at all."""
    near = set(c.neighbourhood()) | set(c.ev.adjacent) | {_ent(c)}
    found = sorted({(s, t, d) for s, t, d, _ in c.edges if t in ("CAN_ASSUME", "CAN_READ") and s in near and d in near})
    odd = [x for x in found if not c.edge_works(*x)]
    fine = [x for x in found if c.edge_works(*x)]
    reversed_ = sorted((d, t, s) for s, t, d in found if t == "CAN_ASSUME" and not c.edge(d, t, s))
    runs = sorted({(s, t, d) for s, t, d, _ in c.edges if t == "RUNS_AS" and s in near and d in near})
    return odd[:2] + reversed_[:1] + fine[:3] + runs[:1]


@picked(lambda c: 1 if _aws(c) else 2, fixed=0)
def link(c: Context) -> Iterator[Pair]:
    """Relationships between two named entities (allowed, denied, blocked, absent)."""
    for k, (a, rel, b) in enumerate(_link_pairs(c)):
        ok = c.edge_works(a, rel, b)
        sa, sb = _show(c, a, k), _show(c, b, k + 1)
        if rel == "CAN_ASSUME":
            if k % 2 == 0:
                yield from both(f"@here fyi {sa} can assume {sb} directly", f"{sa} cannot directly assume {sb}", ok)
            else:
                yield from both(
                    f"{sa} → {sb} (sts:AssumeRole) is allowed and live", f"{sa} has no working assume of {sb}", ok
                )
        elif rel == "CAN_READ":
            yield from both(f"{sa} has direct read on {sb}", f"{sa} can't read {sb} directly", ok)
        else:
            yield from both(f"{sa} runs as {sb}", f"{sa} does not run as {sb}", ok)


@picked(lambda c: 2 if c.live else 1)
def through(c: Context) -> Iterator[Pair]:
    """Which entities the open paths pass through."""
    live = c.live
    n = len(live)
    if n == 0:
        where = " in the graph" if _aws(c) else ""
        middle = [x for x in sorted(set(c.ev.cut_off_entities)) if x != _ent(c) and _label(c, x) != "DataAsset"]
        for k, x in enumerate(middle[:3]):
            sx = _show(c, x, k)
            yield from both(f"no open path{where} goes through {sx}", f"{sx} is still on an open path{where}", True)
        return
    for k, x in enumerate(on_paths(c)[:3]):
        sx = _show(c, x, k)
        every = all(x in p for p in live)
        some = any(x in p for p in live)
        if n == 1:
            yield from both(f"the one open path runs through {sx}", f"the open path doesn't touch {sx}", some)
            continue
        if n == 2:
            yield from both(
                f"both open paths go through {sx}", f"only one of the two open paths goes through {sx}", every
            )
            if not every:
                yield from both(f"{sx} is on one of the two open paths", f"neither open path goes via {sx}", some)
            continue
        yield from both(
            f"all {_w(n, k)} open paths go through {sx}",
            f"at least one of the {_w(n, k)} open paths avoids {sx}",
            every,
        )
        yield from both(f"{sx} is on at least one open path", f"none of the open paths go via {sx}", some)


@picked(2)
def names(c: Context) -> Iterator[Pair]:
    """Reach between named entities, by graph id, plain name, ARN or another case."""
    e = _ent(c)
    start = _start_assets(c)[:2]
    for k, a in enumerate(start + _other_assets(c)[:1]):
        r = reaches(c, e, a)
        se, sa = _show(c, e, k), _show(c, a, k + 1)
        if a not in start:  # never reached by a qualifying path: no "still" or "no longer"
            yield from both(f"{se} has a qualifying path to {sa}", f"{se} has no qualifying path to {sa}", r)
        elif _graph_only(c):
            yield from both(
                f"in the graph, {se} has no qualifying path to {sa} anymore",
                f"in the graph, {se} still has a qualifying path to {sa}",
                not r,
            )
        else:
            yield from both(
                f"{se} still has a qualifying path to {sa}", f"{se} no longer has any qualifying path to {sa}", r
            )
    on = {x for p in c.live for x in p}
    for x in [x for x in on_paths(c) if x in on][:1]:
        a = c.live[0][-1]
        sx, sa = _show(c, x, 1), _show(c, a, 0)
        yield from both(
            f"{sx} leads on to {sa} on an open path", f"nothing open leads from {sx} to {sa}", reaches(c, x, a)
        )


_SOURCES = ("the phishing SMS", "the attacker's paste", "a customer on X", "the vendor's ticket", "the MSSP's email")


@picked(2)
def quote(c: Context) -> Iterator[Pair]:
    """Third parties quoted (no claim) beside the channel's own claims."""
    aid, n = c.ev.alert_id, c.ev.path_count
    src = _SOURCES[_index(c) % len(_SOURCES)]
    src2 = _SOURCES[(_index(c) + 2) % len(_SOURCES)]
    if _aws(c):
        u = c.user
        works = not _key_off(c)
        wrong_claim = f"{u}'s key has been disabled" if works else f"{u}'s key still works"
        true_own = f"{u}'s key is still Active on the account" if works else f"{u}'s key is Inactive on the account"
        false_own = f"{u}'s key is Inactive on the account" if works else f"{u}'s key is still Active on the account"
    elif _contained(c):
        start = paths_at_start(c)
        wrong_claim = f"{_ent(c)} still has access to the data"
        true_own = f"fresh query on {aid}: 0 qualifying paths"
        false_own = f"fresh query on {aid}: {start} qualifying {_paths(start)} still open"
    else:
        wrong_claim = f"{_ent(c)} is fully locked out, nothing left open"
        true_own = f"{aid} still has {_w(n, 1)} qualifying {_paths(n)} open"
        false_own = f"{aid} has no qualifying path left"
    yield (f'> "{wrong_claim}"\n— {src}, pasted here for context, not verified', True)
    yield (f'{src} says "{wrong_claim}" and our own check agrees: {false_own}', False)
    yield (f'{src2} wrote "{wrong_claim}". ours: {true_own}', True)
    yield (f"confirmed on our side: {false_own} (not just what {src2} claims)", False)


def _has_conditional(c: Context) -> bool:
    return not _aws(c) and any(r.status == "active" and r.paths_carried for r in c.ev.routes[:2])


@picked(3, fixed=2)
def modal(c: Context) -> Iterator[Pair]:
    """Hedges, conditionals, questions with and without answers, and plans."""
    aid, n = c.ev.alert_id, c.ev.path_count
    where = " in the graph" if _aws(c) else ""
    if _graph_only(c):
        yield from both(
            f"pretty sure {c.user}'s key still works on the account",
            f"pretty sure {c.user}'s key is dead on the account",
            True,
        )
    else:
        yield from both(f"I think {aid} is contained now", f"I think {aid} is probably still exposed", _contained(c))
    routes = [] if _aws(c) else c.ev.routes[:2]
    for k, r in enumerate(routes):
        if r.status == "active" and r.paths_carried:
            left = _remaining_if_blocked(c, r.source, r.target)
            wrong = left + 1 if left < n else left - 1
            yield (f"if we block {r.route_id}, {_w(left, k)} {_paths(left)} would remain", True)
            yield (f"if we block {r.route_id}, {_w(wrong, k)} {_paths(wrong)} would remain", False)
    claimless = [
        (f"should we call {aid} contained? it would count as contained only after a fresh query finds no path", True),
        (f"a fresh query has already found no qualifying path{where} for {aid}", c.run is not None and n == 0),
    ]
    if not _has_conditional(c):
        yield from claimless
    if _aws(c):
        yield from both(
            f"is {c.user}'s key disabled in AWS? yes",
            f"is {c.user}'s key disabled in AWS? no, not on the account",
            _key_off(c),
        )
    for r in routes:
        rid = r.route_id
        yield from both(f"is {rid} blocked? yes it is", f"is {rid} blocked? no, still active", r.status == "blocked")
        if r.status == "active" and r.paths_carried:
            yield (f"next: block {rid} if the fresh query still shows it open", True)
            yield (f"{rid} is already blocked, nothing to do there", False)
    wrong = n + 1
    plan = f"plan: re-run the fresh query on {aid}; right now"
    yield (f"{plan} {_w(n, 1)} qualifying {_paths(n)} {'is' if n == 1 else 'are'} open{where}", True)
    yield (f"{plan} {_w(wrong, 1)} qualifying {_paths(wrong)} {'is' if wrong == 1 else 'are'} open{where}", False)
    if _has_conditional(c):
        yield from claimless


@picked(2)
def table(c: Context) -> Iterator[Pair]:
    """Markdown tables: before/after counts and a status column."""
    aid, n, s = c.ev.alert_id, c.ev.path_count, _state(c)
    if s == "none":
        head = "| alert | open paths | containment |\n|---|---|---|\n"
        yield (head + f"| {aid} | {n} | not started |", True)
        yield (head + f"| {aid} | 0 | completed |", False)
    else:
        start = paths_at_start(c)
        head = "| alert | paths before | paths after | run |\n|---|---|---|---|\n"
        after = f"{n} (graph only)" if _graph_only(c) else str(n)
        yield (head + f"| {aid} | {start} | {after} | {s} |", True)
        wrong = n + 1 if n < start else max(0, n - 1)
        if _aws(c) or wrong == n:
            yield (head + f"| {aid} | {start} | {after} | {_other_state(s)} |", False)
        else:
            yield (head + f"| {aid} | {start} | {wrong} | {s} |", False)
    done = set(_blocked_by_run(c))
    if _aws(c):
        rid = c.ev.routes[0].route_id if c.ev.routes else ""
        name = _plain(c, rid) if rid else f"{c.user}'s key"
        head = "| credential | graph | AWS |\n|---|---|---|\n"
        now, other = ("Inactive", "Active") if _key_off(c) else ("Active", "Inactive")
        yield (head + f"| {name} | blocked | {now} |", True)
        yield (head + f"| {name} | blocked | {other} |", False)
        return
    head = "| route | status |\n|---|---|\n"
    for r in c.ev.routes[:3]:
        if r.route_id in done:
            yield from both(
                head + f"| {r.route_id} | ~~active~~ **blocked** |", head + f"| {r.route_id} | 🟢 active |", True
            )
        elif r.status == "active":
            yield from both(
                head + f"| {r.route_id} | 🟢 active |", head + f"| {r.route_id} | ~~active~~ **blocked** |", True
            )
        else:  # blocked before any run
            yield from both(head + f"| {r.route_id} | 🔒 blocked |", head + f"| {r.route_id} | 🟢 active |", True)


@picked(1, fixed=0)
def percent(c: Context) -> Iterator[Pair]:
    """Shares of the paths cut and left, in percentages and 'X of Y'."""
    start, now, aid = paths_at_start(c), c.ev.path_count, c.ev.alert_id
    if start == 0:
        return
    where = " in the graph" if _aws(c) else ""
    pct = round(100 * (start - now) / start)
    yield (f"{pct}% of {aid}'s paths are cut{where}", True)
    yield (f"{50 if pct != 50 else 100}% of {aid}'s paths are cut{where}", False)
    wrong = now + 1 if now < start else now - 1
    yield (f"{aid}: {_w(now, 0)} of {_w(start, 0)} {_paths(start)} still open{where}", True)
    yield (f"{aid}: {_w(wrong, 1)} of {_w(start, 1)} {_paths(start)} still open{where}", False)
    if c.run is None:
        if start == 1:
            yield from both(f"{aid}'s only path hasn't been cut yet", f"{aid}'s only path has already been cut", True)
        else:
            yield from both(
                f"none of {aid}'s {_w(start, 1)} paths has been cut yet",
                f"some of {aid}'s {_w(start, 1)} paths have already been cut",
                True,
            )


FOURTEENTH: list[Family] = [
    Family("h14.bot_dump", "state", bot_dump),
    Family("h14.yaml_routes", "route", yaml_routes),
    Family("h14.correction", "count", correction),
    Family("h14.allcaps", "state", allcaps),
    Family("h14.statuspage", "run", statuspage),
    Family("h14.account_chat", "account", account_chat),
    Family("h14.checklist", "run", checklist),
    Family("h14.hops", "hops", hops),
    Family("h14.score", "score", score),
    Family("h14.link", "link", link),
    Family("h14.through", "through", through),
    Family("h14.names", "name", names),
    Family("h14.quote", "quotation", quote),
    Family("h14.modal", "modal", modal),
    Family("h14.table", "run", table),
    Family("h14.percent", "count", percent),
]

assert 12 <= len(FOURTEENTH) <= 16 and all(f.name.startswith("h14.") for f in FOURTEENTH)
