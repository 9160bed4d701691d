"""The fifteenth held-out set: template families in the register of an auditor's or compliance memo.

Written without seeing the briefing checker's rules, its tuning corpora or any earlier held-out set, from
the product's documentation (README, docs/internals.md, docs/aws-live.md) and the facts of the contexts
that tests/helpers/briefing_families.py describes. Every label is computed from the Context's facts (the
fresh evidence `c.ev`, the run record `c.run`, the graph's relationships `c.edges`), never written by hand.

Style: long sentences with subordinate clauses, the passive voice ("it was determined that ..."), numbered
findings ("Finding 3: ..."), formal hedges ("it is the assessment of the responding team that ..."),
nominalisations ("the deactivation of the key was not effected"), "respectively" lists pairing entities
with states, footnote-style references, and evidence tables (control / expected / observed / result).

Conventions (kept by every family):
- A hedged claim ("probably X", "I think X", "it is the assessment of the responding team that X") claims X.
- A quotation of a third party (reported words, a block quote of someone else's message) claims nothing;
  the writer's own verdict on it ("that assertion is accurate") is a claim of the writer.
- A question claims nothing; its answer ("Was R blocked? It was.") claims what the answer says.
- A plan or recommendation ("next: block R", "it is recommended that R be blocked") claims nothing of its own.
- A condition on a future event ("should a later query find a path, the alert would be reopened") claims
  nothing; a what-if about the current paths ("were R alone blocked, no qualifying path would remain in
  the graph") claims exactly that what-if, decided by whether R carries every live path.
- A checklist item "[x] X" claims X was done; "[ ] X" claims X was not done (yet).
- An evidence-table row claims what its "observed" (or status) column says of the row's subject; the
  "result" column is kept consistent with expected versus observed, so a row is false exactly when its
  observation is.
- "Contained" (bare) means: a fresh query finds no qualifying path AND the run did not end graph_only.
  After a run that ended graph_only on the AWS account the paths are gone from the graph but still open
  on the account (the key still works): a bare "the alert is contained" is false there, "the exposure
  persists" is true, and "no qualifying path remains in the graph" is true.
- A relationship claim "A may assume B directly" is about the one relationship between them: true only
  when it exists, is allowed and is not blocked.
- Only entities of the context's neighbourhood (live paths, cut-off entities, blast radius) and routes of
  its evidence are named, by graph id, plain name, ARN or a different case; an instance the facts do not
  decide is skipped.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

from tests.helpers.briefing_families import Context, Family, both, on_paths, pairs, paths_at_start, reaches, words

__all__ = ["FIFTEENTH"]

Pairs = list[tuple[str, bool]]
Chunks = list[Pairs]
REVOCATIONS = {"revoke_role_sessions", "revoke_user_sessions"}
BANDS = [(0, 29, "low"), (30, 59, "medium"), (60, 79, "high"), (80, 100, "critical")]


# -- facts -------------------------------------------------------------------------------------------


def state(c: Context) -> str | None:
    if c.run is None:
        return None
    return str(getattr(c.run.state, "value", c.run.state))


def is_aws(c: Context) -> bool:
    return bool(c.arns)


def graph_clear(c: Context) -> bool:
    """A fresh query finds no qualifying path in the graph."""
    return c.ev.status == "no_path" and c.ev.path_count == 0


def contained(c: Context) -> bool:
    """The bare word: no qualifying path in the graph and no graph-only run leaving the account open."""
    return graph_clear(c) and c.ev.containment_state == "contained" and state(c) != "graph_only"


def key_action(c: Context):
    if c.run is None:
        return None
    return next(
        (a for a in c.run.actions if a.aws is not None and str(a.aws.plan.kind) == "deactivate_access_key"), None
    )


def sessions_revoked(c: Context) -> bool:
    if c.run is None:
        return False
    return any(
        a.operation in REVOCATIONS and a.aws is not None and a.aws.applied_in_aws and a.applied and a.api_verified
        for a in c.run.actions
    )


def blocked_by_run(c: Context) -> set[str]:
    if c.run is None:
        return set()
    return {a.route_id for a in c.run.actions if a.status == "applied" and a.operation == "block_route"}


def min_hops(c: Context) -> int | None:
    return min((p.hops for p in c.ev.paths), default=None)


def band(score: int) -> str:
    return next(name for lo, hi, name in BANDS if lo <= score <= hi)


def pl(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def nm(c: Context, eid: str, k: int) -> str:
    """An entity by graph id, plain name, ARN or a different case, in turn (only unambiguous forms)."""
    name = c.names.get(eid, eid)
    unique = sum(1 for v in c.names.values() if v.lower() == name.lower()) == 1
    forms = [eid]
    if unique and name != eid:
        forms.append(name)
    if eid in c.arns and c.ev.arns.get(c.arns[eid]) == eid:
        forms.append(c.arns[eid])
    if eid[:1].isalpha():
        forms.append(eid.upper() if k % 2 else eid[:1].upper() + eid[1:])
    elif unique:
        forms.append(name.upper())
    return forms[k % len(forms)]


def entity(c: Context, k: int = 0) -> str:
    return nm(c, c.ev.entity_id, k)


def aid(c: Context) -> str:
    return c.ev.alert_id


def route_carries(c: Context, route_id: str, path: list[str]) -> bool:
    r = next((r for r in c.ev.routes if r.route_id == route_id), None)
    if r is None:
        return False
    return any(path[i] == r.source and path[i + 1] == r.target for i in range(len(path) - 1))


def cap_reached(c: Context) -> bool | None:
    """Whether the run stopped on its action cap; None when undecided (cap used up by a run that ended otherwise)."""
    if c.run is None:
        return None
    s = state(c)
    if s == "stopped":
        return "cap" in c.run.reason
    if len(c.run.actions) >= c.run.max_actions:
        return None
    return False


def select(c: Context, chunks: Chunks, k: int, keep: int = 0) -> Pairs:
    """At most k chunks (a claim with its negation, or a claimless sentence) for this context: the first `keep`
    always, then the others in turn from an offset fixed by the context's key, so contexts vary."""
    chunks = [ch for ch in chunks if ch]
    head, rest = chunks[:keep], chunks[keep:]
    picked = head[:k]
    if rest and len(picked) < k:
        off = zlib.crc32(c.key.encode()) % len(rest)
        picked += [rest[(off + i) % len(rest)] for i in range(min(k - len(picked), len(rest)))]
    return [x for ch in picked for x in ch]


def family(name: str, kind: str, fn: Callable[[Context], Chunks], k: int, keep: int = 0) -> Family:
    return Family(f"h15.{name}", kind, lambda c: select(c, fn(c), k, keep))


# -- h15.determination (state) -----------------------------------------------------------------------


def determination(c: Context) -> Chunks:
    out: Chunks = []
    a, e = aid(c), entity(c, 1)
    k = key_action(c)
    if is_aws(c) and graph_clear(c) and k is not None:
        out.append(
            both(
                f"While the qualifying paths of {e} have been removed from the graph, it must be recorded that the "
                "bucket remains readable on the AWS account by means of the access key, that key not having been "
                "deactivated there.",
                f"The qualifying paths of {e} have been removed from the graph and, the access key having been "
                "deactivated on the AWS account, reading the bucket by means of that key has likewise been "
                "brought to an end there.",
                not c.account_done("key"),
            )
        )
    out.append(
        both(
            f"Following a review of the results of the fresh query, it was determined that alert {a} has been "
            "contained.",
            f"Following a review of the results of the fresh query, it was determined that alert {a} has not been "
            "contained.",
            contained(c),
        )
    )
    out.append(
        both(
            f"It is the finding of this review that no qualifying path from {e} to a high- or critical-sensitivity "
            "asset remains in the graph as it now stands.",
            f"It is the finding of this review that at least one qualifying path from {e} to a high- or "
            "critical-sensitivity asset remains in the graph as it now stands.",
            graph_clear(c),
        )
    )
    out.append(
        both(
            "The exposure that gave rise to the alert was found to persist at the time this memorandum was prepared.",
            "The exposure that gave rise to the alert was found to have been closed by the time this memorandum "
            "was prepared.",
            not contained(c),
        )
    )
    out.append(
        both(
            "### Finding 1: containment status\n\nThe containment of the exposure has been effected in full, and "
            "nothing remains open in respect of this alert.",
            "### Finding 1: containment status\n\nThe containment of the exposure has not been effected, and the "
            "matter remains open in respect of this alert.",
            contained(c),
        )
    )
    out.append(
        both(
            "Overall determination: the alert is **contained**[^1].\n\n[^1]: On the basis of a fresh query of the "
            "graph at depth six and of the run record.",
            "Overall determination: the alert is **not contained**[^1].\n\n[^1]: On the basis of a fresh query of "
            "the graph at depth six and of the run record.",
            contained(c),
        )
    )
    return out


# -- h15.run-record (run) ----------------------------------------------------------------------------


def run_record(c: Context) -> Chunks:
    out: Chunks = []
    a = aid(c)
    s = state(c)
    if c.run is None:
        out.append(
            both(
                f"It is recorded that no containment run has as yet been initiated in respect of alert {a}.",
                f"It is recorded that a containment run has already been carried out in respect of alert {a}.",
                True,
            )
        )
        out.append(
            both(
                "**Finding 2.** No blocking action has been taken by a containment run on behalf of this alert, "
                "no such run having been started.",
                "**Finding 2.** Blocking actions have already been taken by a containment run on behalf of this alert.",
                True,
            )
        )
        return out
    n = sum(1 for x in c.run.actions if x.status == "applied" and x.verified)
    out.append(
        both(
            "**Finding 2.** The containment run was recorded as completed, a fresh query having returned no "
            "qualifying path and every action having been verified.",
            "**Finding 2.** The containment run was not recorded as completed.",
            s == "completed",
        )
    )
    out.append(
        both(
            "The run was halted before it could be brought to completion, and it has accordingly been recorded "
            "as stopped.",
            "It is noted that the run was not recorded as stopped.",
            s == "stopped",
        )
    )
    out.append(
        both(
            "The run concluded in the graph_only state, the block in question having been applied within the "
            "graph alone and not on the account.",
            "The run did not conclude in the graph_only state.",
            s == "graph_only",
        )
    )
    alt = {"completed": "stopped", "stopped": "completed", "graph_only": "completed"}.get(s or "", "completed")
    out.append(
        [
            (
                f"The run has been recorded as {s}, even if a later query were to find the graph changed.",
                True,
            ),
            (
                f"The run has been recorded as {alt}, even if a later query were to find the graph changed.",
                False,
            ),
        ]
    )
    wrong = n + 1 if n < 3 else n - 1
    out.append(
        [
            (
                f"In the course of the run, a total of {words(n)} ({n}) {pl(n, 'action was', 'actions were')} "
                "applied in the graph and verified there.",
                True,
            ),
            (
                f"In the course of the run, a total of {words(wrong)} ({wrong}) "
                f"{pl(wrong, 'action was', 'actions were')} applied in the graph and verified there.",
                False,
            ),
        ]
    )
    cap = cap_reached(c)
    if cap is not None:
        m = c.run.max_actions
        out.append(
            both(
                f"The run was brought to a halt upon reaching its action cap of {words(m)} ({m}), paths still "
                "remaining at that point.",
                f"The action cap of {words(m)} ({m}) was not the cause of the run's conclusion.",
                cap,
            )
        )
    if s == "stopped":
        out.append(
            [
                (
                    "The run was stopped because none of the remaining qualifying paths passed through an active "
                    "session route that could have been blocked.",
                    "none passes through" in c.run.reason,
                )
            ]
        )
    return out


# -- h15.account-effect (account) --------------------------------------------------------------------


def account_effect(c: Context) -> Chunks:
    out: Chunks = []
    if not is_aws(c):
        if c.run is not None and c.run.actions:
            out.append(
                both(
                    "It is confirmed that no action taken in the course of this run was applied to an AWS "
                    "account; every block was made within the graph.",
                    "The actions taken in the course of this run were applied to an AWS account as well as to "
                    "the graph.",
                    not any(x.aws is not None for x in c.run.actions),
                )
            )
        return out
    k = key_action(c)
    if k is None:
        return out
    user = c.user
    arn = next((a for a, i in c.ev.arns.items() if i == c.ev.entity_id), user)
    done = c.account_done("key")
    policy = c.account_done("policy")
    out.append(
        both(
            f"It was confirmed by a re-read of the account that the access key of {user} had been deactivated.",
            f"The deactivation of the access key of {user} was not effected on the account.",
            done,
        )
    )
    out.append(
        both(
            f"The block on {k.route_id} was not applied in AWS and exists within the graph alone.",
            f"The block on {k.route_id} was applied in AWS as well as within the graph.",
            not done,
        )
    )
    out.append(
        both(
            f"A deny-all inline policy was attached to {user} in the course of the run.",
            f"No deny-all inline policy was attached to {user}, no such step having formed part of the run.",
            policy,
        )
    )
    out.append(
        both(
            f"The revocation of the active sessions of {user} was carried out on the account.",
            f"No revocation of the sessions of {user} was carried out on the account.",
            sessions_revoked(c),
        )
    )
    out.append(
        both(
            f"It must be noted that the access key of {arn} remains usable against the AWS account at the time of "
            "writing.",
            f"The access key of {arn} can no longer be used against the AWS account.",
            not done,
        )
    )
    out.append(
        both(
            f"The credentials of {arn} were disabled in AWS by BlastShield.",
            f"The credentials of {arn} were not disabled in AWS.",
            done,
        )
    )
    revoked = sessions_revoked(c)
    out.append(
        [
            (
                f"Neither was a deny-all inline policy attached to {user}, nor were the sessions of {user} revoked.",
                not policy and not revoked,
            ),
            (
                f"A deny-all inline policy was attached to {user}, and the sessions of {user} were in addition "
                "revoked.",
                policy and revoked,
            ),
        ]
    )
    states = ("inactive" if done else "active", "attached" if policy else "not attached")
    flipped = ("active" if done else "inactive", states[1])
    out.append(
        [
            (
                f"The access key of {user} and the deny-all inline policy were found to be {states[0]} and "
                f"{states[1]}, respectively.",
                True,
            ),
            (
                f"The access key of {user} and the deny-all inline policy were found to be {flipped[0]} and "
                f"{flipped[1]}, respectively.",
                False,
            ),
        ]
    )
    return out


# -- h15.checklist (account) -------------------------------------------------------------------------


def checklist(c: Context) -> Chunks:
    out: Chunks = []

    def item(text: str, done: bool) -> Pairs:
        return both(f"- [x] {text}", f"- [ ] {text}", done)

    if is_aws(c):
        k = key_action(c)
        user = c.user
        out.append(item(f"Access key of {user} deactivated in AWS", c.account_done("key")))
        out.append(
            both(
                "✅ Containment confirmed, on the account as well as in the graph",
                "❌ Containment not confirmed on the account",
                contained(c),
            )
        )
        if k is not None:
            out.append(item(f"Block of {k.route_id} recorded in the graph", c.route_status(k.route_id) == "blocked"))
        out.append(item(f"Deny-all inline policy attached to {user}", c.account_done("policy")))
        out.append(item(f"Sessions already issued to {user} revoked on the account", sessions_revoked(c)))
        return out
    out.append(item("Containment run executed for this alert", c.run is not None))
    out.append(both("✅ Alert contained", "🔴 Alert not contained: qualifying paths remain open", contained(c)))
    out.append(item("Fresh query returned no qualifying path", graph_clear(c)))
    for r in c.ev.routes[:3]:
        out.append(item(f"Route {r.route_id} blocked", r.status == "blocked"))
    return out


# -- h15.control-table (account) ---------------------------------------------------------------------

HEADER = "| control | expected | observed | result |\n|---|---|---|---|\n"


def row(control: str, expected: str, observed: str) -> str:
    return HEADER + f"| {control} | {expected} | {observed} | {'met' if observed == expected else 'not met'} |"


def control_table(c: Context) -> Chunks:
    out: Chunks = []
    k = key_action(c)
    if not is_aws(c) or k is None:
        return out
    user = c.user
    done = c.account_done("key")
    actual, other = ("Inactive", "Active") if done else ("Active", "Inactive")
    out.append(
        [
            (row(f"Access key of {user} on the AWS account", "Inactive", actual), True),
            (row(f"Access key of {user} on the AWS account", "Inactive", other), False),
        ]
    )
    n = c.ev.path_count
    out.append(
        [
            (row("Qualifying paths in the graph (fresh query)", "0", str(n)), True),
            (row("Qualifying paths in the graph (fresh query)", "0", str(n + 1)), False),
        ]
    )
    s = state(c) or ""
    wrong = "graph_only" if s != "graph_only" else "completed"
    out.append(
        [
            (row("Recorded run state", "completed", s), True),
            (row("Recorded run state", "completed", wrong), False),
        ]
    )
    pol, pol_other = ("attached", "not attached") if c.account_done("policy") else ("not attached", "attached")
    out.append(
        [
            (row(f"Deny-all inline policy on {user}", "not attached", pol), True),
            (row(f"Deny-all inline policy on {user}", "not attached", pol_other), False),
        ]
    )
    out.append(
        [
            (row(f"Block on {k.route_id} applied in AWS", "yes", "yes" if done else "no"), True),
            (row(f"Block on {k.route_id} applied in AWS", "yes", "no" if done else "yes"), False),
        ]
    )
    return out


# -- h15.route-table (route) -------------------------------------------------------------------------


def route_table(c: Context) -> Chunks:
    out: Chunks = []
    column = "observed status (graph)" if is_aws(c) else "observed status"
    head = f"| route | expected | {column} | result |\n|---|---|---|---|\n"
    for r in c.ev.routes[:4]:
        other = "active" if r.status == "blocked" else "blocked"
        chunk = []
        for obs, ok in ((r.status, True), (other, False)):
            chunk.append(
                (head + f"| {r.route_id} | blocked | {obs} | {'met' if obs == 'blocked' else 'not met'} |", ok)
            )
        out.append(chunk)
    if c.run is not None:
        for r in c.ev.routes[:2]:
            out.append(
                both(
                    f"| route | blocked by this run |\n|---|---|\n| {r.route_id} | yes |",
                    f"| route | blocked by this run |\n|---|---|\n| {r.route_id} | no |",
                    r.route_id in blocked_by_run(c),
                )
            )
    return out


# -- h15.respectively (route) ------------------------------------------------------------------------


def respectively(c: Context) -> Chunks:
    out: Chunks = []
    routes = c.ev.routes
    flip = {"active": "blocked", "blocked": "active"}
    mixed = [(r1, r2) for r1 in routes for r2 in routes if r1.route_id < r2.route_id and r1.status != r2.status]
    same = [(r1, r2) for r1 in routes for r2 in routes if r1.route_id < r2.route_id and r1.status == r2.status]
    for r1, r2 in (mixed[:2] + same[:1])[:2]:
        out.append(
            [
                (
                    f"Routes {r1.route_id} and {r2.route_id} were found, upon inspection, to be {r1.status} and "
                    f"{r2.status}, respectively.",
                    True,
                ),
                (
                    f"Routes {r1.route_id} and {r2.route_id} were found, upon inspection, to be "
                    f"{flip[r1.status]} and {flip[r2.status]}, respectively.",
                    False,
                ),
            ]
        )
    if len(routes) >= 2:
        r1, r2 = routes[0], routes[1]
        out.append(
            [
                (f"Neither {r1.route_id} nor {r2.route_id} has been blocked.", r1.status == r2.status == "active"),
                (
                    f"Both {r1.route_id} and {r2.route_id} were found, on examination of the route record, to have "
                    "been blocked.",
                    r1.status == r2.status == "blocked",
                ),
            ]
        )
    by = blocked_by_run(c)
    for r in routes[:2]:
        if c.run is not None:
            out.append(
                both(
                    f"It was determined that route {r.route_id} had been blocked by the containment run under review.",
                    f"It was determined that route {r.route_id} had not been blocked by the containment run under "
                    "review.",
                    r.route_id in by,
                )
            )
        else:
            out.append(
                both(
                    f"The route {r.route_id} was, at the time of the review, in an active state.",
                    f"The route {r.route_id} was, at the time of the review, in a blocked state.",
                    r.status == "active",
                )
            )
    return out


# -- h15.counts (count) ------------------------------------------------------------------------------


def counts(c: Context) -> Chunks:
    out: Chunks = []
    if c.ev.truncated:
        return out
    n, e = c.ev.path_count, entity(c)
    wrong = n + 1 if n < 2 else n - 1
    out.append(
        [
            (
                f"The fresh query identified {words(n)} ({n}) qualifying {pl(n, 'path', 'paths')} from {e} within "
                "the graph[^2].\n\n[^2]: Standard investigation, depth six.",
                True,
            ),
            (
                f"The fresh query identified {words(wrong)} ({wrong}) qualifying {pl(wrong, 'path', 'paths')} from "
                f"{e} within the graph[^2].\n\n[^2]: Standard investigation, depth six.",
                False,
            ),
        ]
    )
    start = paths_at_start(c)
    if c.run is not None and start > 0:
        alt = next(x for x in (n - 1, n + 1, 0, 1) if 0 <= x <= start and x != n)
        out.append(
            [
                (
                    f"Of the {words(start)} qualifying {pl(start, 'path', 'paths')} identified at the outset of the "
                    f"run, {words(now)} {pl(now, 'remains', 'remain')} open in the graph.",
                    ok,
                )
                for now, ok in ((n, True), (alt, False))
            ]
        )
        pct = round(100 * (start - n) / start)
        wrong_pct = 50 if pct != 50 else 100
        out.append(
            [
                (
                    f"It was established that {pct}% of the paths identified at the outset have since been severed.",
                    True,
                ),
                (
                    f"It was established that {wrong_pct}% of the paths identified at the outset have since been "
                    "severed.",
                    False,
                ),
            ]
        )
    a = len(c.ev.assets)
    wrong_a = a + 1 if a < 2 else a - 1
    out.append(
        [
            (
                f"A total of {words(a)} distinct {pl(a, 'asset', 'assets')} of high or critical sensitivity "
                f"{pl(a, 'was', 'were')} found to be reachable in the graph.",
                True,
            ),
            (
                f"A total of {words(wrong_a)} distinct {pl(wrong_a, 'asset', 'assets')} of high or critical "
                f"sensitivity {pl(wrong_a, 'was', 'were')} found to be reachable in the graph.",
                False,
            ),
        ]
    )
    return out


# -- h15.distance (hops) -----------------------------------------------------------------------------


def distance(c: Context) -> Chunks:
    out: Chunks = []
    e = entity(c, 2)
    h = min_hops(c)
    if h is None:
        for d in (4, 6):
            out.append(
                both(
                    f"No qualifying path was found from {e} within {words(d)} hops.",
                    f"A qualifying path was found from {e} within {words(d)} hops.",
                    True,
                )
            )
        return out
    wrong = h + 1 if h < 5 else h - 1
    out.append(
        [
            (
                f"**Finding 4.** The shortest of the qualifying paths was found to comprise {words(h)} ({h}) "
                f"{pl(h, 'hop', 'hops')}.",
                True,
            ),
            (
                f"**Finding 4.** The shortest of the qualifying paths was found to comprise {words(wrong)} ({wrong}) "
                f"{pl(wrong, 'hop', 'hops')}.",
                False,
            ),
        ]
    )
    p0 = min(c.ev.paths, key=lambda p: p.hops)
    lengths = {p.hops for p in c.ev.paths if p.nodes[-1] == p0.nodes[-1]}
    bad = next(x for x in (p0.hops + 1, p0.hops + 2, p0.hops - 1) if x not in lengths and x > 0)
    out.append(
        [
            (
                f"A {words(p0.hops)}-hop chain from {entity(c, 0)} to {nm(c, p0.nodes[-1], 1)} was identified in "
                "the course of the investigation.",
                True,
            ),
            (
                f"A {words(bad)}-hop chain from {entity(c, 0)} to {nm(c, p0.nodes[-1], 1)} was identified in the "
                "course of the investigation.",
                False,
            ),
        ]
    )
    for d in sorted({h - 1, h} - {0}):
        out.append(
            both(
                f"It was established that no qualifying path exists from {e} within {words(d)} {pl(d, 'hop', 'hops')}.",
                f"It was established that a qualifying path exists from {e} within {words(d)} {pl(d, 'hop', 'hops')}.",
                d < h,
            )
        )
    # distances between two named entities on the live paths, where every live path holding both agrees
    seen: set[tuple[str, str]] = set()
    for p in c.live:
        for i, j in ((1, len(p) - 1), (0, len(p) - 2)):
            if j <= i or (p[i], p[j]) in seen:
                continue
            seen.add((p[i], p[j]))
            ds = {q.index(p[j]) - q.index(p[i]) for q in c.live if p[i] in q and p[j] in q}
            if len(ds) != 1:
                continue
            k = ds.pop()
            out.append(
                [
                    (
                        f"Along the qualifying paths recorded, {nm(c, p[j], i + j)} lies {words(k)} "
                        f"{pl(k, 'relationship', 'relationships')} beyond {nm(c, p[i], i)}.",
                        True,
                    ),
                    (
                        f"Along the qualifying paths recorded, {nm(c, p[j], i + j)} lies {words(k + 1)} relationships "
                        f"beyond {nm(c, p[i], i)}.",
                        False,
                    ),
                ]
            )
    return out


# -- h15.score (score) -------------------------------------------------------------------------------


def scoring(c: Context) -> Chunks:
    out: Chunks = []
    s, sev = c.ev.risk_score, c.ev.severity
    wrong = s + 15 if s <= 80 else s - 15
    other = band(wrong) if band(wrong) != sev else next(b for _, _, b in BANDS if b != sev)
    out.append(
        [
            (f"At the time of writing, the alert carries a risk score of {s} under rule set {c.ev.rule_set}.", True),
            (
                f"At the time of writing, the alert carries a risk score of {wrong} under rule set {c.ev.rule_set}.",
                False,
            ),
        ]
    )
    out.append(
        both(
            f"The severity of the alert is presently assessed as {sev}.",
            f"The severity of the alert is presently assessed as {other}.",
            True,
        )
    )
    out.append(
        [
            (
                f"A score of {words(s)} out of one hundred ({s}%) has been computed for the alert as it now stands.",
                True,
            ),
            (
                f"A score of {words(wrong)} out of one hundred ({wrong}%) has been computed for the alert as it now "
                "stands.",
                False,
            ),
        ]
    )
    lo = (s // 10) * 10
    out.append(
        both(
            f"The computed score was found to fall between {lo} and {lo + 10}, inclusive.",
            f"The computed score was found to fall between {lo + 20} and {lo + 30}, inclusive.",
            True,
        )
    )
    out.append(
        both(
            f"With a score of {s}, the alert falls within the {band(s)} band of demo-rules-v1.",
            f"With a score of {s}, the alert falls within the {other} band of demo-rules-v1.",
            True,
        )
    )
    return out


# -- h15.relationships (link) ------------------------------------------------------------------------

LINK_TEXT = {
    "CAN_ASSUME": (
        "It was established that {a} is permitted to assume {b} directly.",
        "It was established that {a} is not permitted to assume {b} directly.",
    ),
    "CAN_READ": (
        "The review confirmed that {a} holds a working grant to read {b}.",
        "The review confirmed that {a} holds no working grant to read {b}.",
    ),
    "RUNS_AS": (
        "It has been verified that the workload {a} executes under {b}.",
        "It has been verified that the workload {a} does not execute under {b}.",
    ),
    "HAS_SESSION": (
        "It was observed that {a} holds an active session, namely {b}.",
        "It was observed that the session {b} is not an active session of {a}.",
    ),
    "CAN_ACCESS": (
        "The session {a} was found to be granted access to {b} by a relationship that is still active.",
        "The session {a} was found to hold no active grant of access to {b}.",
    ),
}


def relationships(c: Context) -> Chunks:
    out: Chunks = []
    k = 0
    for rel, (pos, neg) in LINK_TEXT.items():
        for a, b in pairs(c, rel):
            if rel != "CAN_ASSUME" and not c.edge(a, rel, b):
                continue  # a reversed pair of another type would be nonsense, not a claim
            if rel in ("HAS_SESSION", "CAN_ACCESS") and is_aws(c):
                continue  # a key's relationships: the graph and the account may disagree, undecided
            ok = c.edge_works(a, rel, b)
            out.append(
                both(pos.format(a=nm(c, a, k), b=nm(c, b, k + 1)), neg.format(a=nm(c, a, k), b=nm(c, b, k + 1)), ok)
            )
            k += 1
            if rel == "CAN_ASSUME" and any(p.get("permission") == "deny" for p in c.edge(a, rel, b)):
                out.append(
                    both(
                        f"The grant by which {nm(c, a, k)} would assume {nm(c, b, k)} was found to be explicitly "
                        "denied.",
                        f"The grant by which {nm(c, a, k)} would assume {nm(c, b, k)} was found to be allowed.",
                        True,
                    )
                )
    # the claims whose positive form is false (denied, blocked, absent) first, then the true ones
    return [ch for ch in out if not ch[0][1]][:2] + [ch for ch in out if ch[0][1]]


# -- h15.traversal (through) -------------------------------------------------------------------------


def traversal(c: Context) -> Chunks:
    out: Chunks = []
    live = c.live
    if not live:
        return out
    start = c.ev.entity_id
    assets = set(c.ev.assets)
    candidates = [x for x in on_paths(c) if x != start and x not in assets]
    extra = [x for x in c.neighbourhood() if x not in candidates and x != start and x not in assets]
    for i, x in enumerate(candidates[:3] + extra[:1]):
        name = nm(c, x, i)
        if len(live) > 1:
            out.append(
                both(
                    f"It was observed that every one of the {words(len(live))} qualifying paths traverses {name}.",
                    f"It was observed that at least one of the {words(len(live))} qualifying paths does not "
                    f"traverse {name}.",
                    all(x in p for p in live),
                )
            )
        out.append(
            both(
                f"{name} was found to lie on at least one of the qualifying paths that remain.",
                f"{name} was found to lie on none of the qualifying paths that remain.",
                any(x in p for p in live),
            )
        )
    for j, asset in enumerate(sorted(assets)):
        to = [p for p in live if p[-1] == asset]
        if len(to) != 1:
            continue
        mids = to[0][1:-1]
        read_targets = {d for _, t, d, _ in c.edges if t == "CAN_READ"}
        others = [x for x in candidates + extra if x not in to[0] and x not in read_targets]
        chunk = []
        for x, ok in ([(mids[0], True)] if mids else []) + ([(others[0], False)] if others else []):
            chunk.append(
                (
                    f"The sole path by which {nm(c, asset, j)} is reached was found to run by way of "
                    f"{nm(c, x, j + 1)}.",
                    ok,
                )
            )
        out.insert(0, chunk)
    return out


# -- h15.quotation (quotation) -----------------------------------------------------------------------


def quotation(c: Context) -> Chunks:
    out: Chunks = []
    a = aid(c)
    # third parties' words: no claim of the memo, whatever they say
    out.append(
        [
            (
                'The on-call engineer is recorded in the ticket as having stated: "the exposure has been fully '
                'remediated and the incident may be closed."',
                True,
            )
        ]
    )
    out.append(
        [
            (
                "> Dear user, your session has been revoked and all access suspended. Please re-enter your "
                "password at the link below to restore access.\n\n(Text of the phishing message forwarded by the "
                "reporter, reproduced for reference only.)",
                True,
            )
        ]
    )
    out.append(
        both(
            f"The service owner asserted that the exposure under alert {a} had been closed; having examined the "
            "evidence, this review finds that assertion to be accurate.",
            f"The service owner asserted that the exposure under alert {a} had been closed; having examined the "
            "evidence, this review finds that assertion to be inaccurate.",
            contained(c),
        )
    )
    for r in c.ev.routes[:2]:
        out.append(
            both(
                f"The platform team reported that route {r.route_id} had been blocked, and the route record "
                "confirms their report.",
                f"The platform team reported that route {r.route_id} had been blocked, but the route record does "
                "not confirm their report.",
                r.status == "blocked",
            )
        )
    if is_aws(c):
        out.insert(
            0,
            both(
                f'According to the account owner, "{c.user}\'s key was switched off this morning"; this review '
                "has confirmed the statement against the account.",
                f'According to the account owner, "{c.user}\'s key was switched off this morning"; this review '
                "found the statement to be unsupported by the account.",
                c.account_done("key"),
            ),
        )
    return out


# -- h15.hedged (modal) ------------------------------------------------------------------------------


def hedged(c: Context) -> Chunks:
    out: Chunks = []
    e = entity(c, 1)
    out.append(
        both(
            "It is the assessment of the responding team that the alert has, in all material respects, been contained.",
            "It is the assessment of the responding team that the alert has not, as yet, been contained.",
            contained(c),
        )
    )
    asset = c.ev.assets[0] if c.ev.assets else None
    if asset is not None:
        out.append(
            both(
                f"In all probability, {e} is still able to reach {nm(c, asset, 1)} over a qualifying path.",
                f"In all probability, {e} is no longer able to reach {nm(c, asset, 1)} over any qualifying path.",
                reaches(c, c.ev.entity_id, asset),
            )
        )
    if c.run is not None:
        out.append(
            both(
                "I think it fair to say that the run was brought to completion.",
                "I think it fair to say that the run was not brought to completion.",
                state(c) == "completed",
            )
        )
    # plans, recommendations and conditions claim nothing of their own
    active = [r for r in c.ev.routes if r.status == "active" and r.paths_carried]
    if active:
        out.append([(f"Next step: block {active[0].route_id}, subject to the approval of the incident lead.", True)])
    out.append(
        [
            (
                "Should a subsequent fresh query return a qualifying path, the alert would be reopened and the "
                "matter escalated to the incident lead.",
                True,
            )
        ]
    )
    # questions: unanswered claims nothing; answered claims the answer
    out.append([(f"Is {e} still in a position to reach sensitive data? This question is addressed below.", True)])
    for r in c.ev.routes[:1]:
        out.append(
            both(
                f"Was route {r.route_id} blocked at the time of review? It was.",
                f"Was route {r.route_id} blocked at the time of review? It was not.",
                r.status == "blocked",
            )
        )
    # a what-if about the current paths claims the what-if
    if c.live:
        for r in c.ev.routes:
            if r.status != "active":
                continue
            out.append(
                both(
                    f"Were {r.route_id} alone to be blocked, it is the assessment of the team that no qualifying "
                    "path would remain in the graph.",
                    f"Were {r.route_id} alone to be blocked, it is the assessment of the team that at least one "
                    "qualifying path would remain in the graph.",
                    all(route_carries(c, r.route_id, p) for p in c.live),
                )
            )
    return out


# -- h15.naming (name) -------------------------------------------------------------------------------


def naming(c: Context) -> Chunks:
    out: Chunks = []
    start = c.ev.entity_id
    if is_aws(c):
        bucket = next((i for i in c.ev.arns.values() if ":bucket:" in i), None)
        if bucket is None:
            return out
        done = c.account_done("key")
        for k in range(3):
            out.append(
                both(
                    f"It must be recorded that {nm(c, bucket, k)} remains readable by {nm(c, start, k + 1)} on the "
                    "AWS account by means of the access key, at the time of writing.",
                    f"It must be recorded that {nm(c, bucket, k)} is no longer readable by {nm(c, start, k + 1)} on "
                    "the AWS account by means of the access key.",
                    not done,
                )
            )
        out.append(
            both(
                f"Within the graph, {nm(c, start, 2)} was found to retain a qualifying path to {nm(c, bucket, 2)}.",
                f"Within the graph, {nm(c, start, 2)} was found to retain no qualifying path to {nm(c, bucket, 2)}.",
                reaches(c, start, bucket),
            )
        )
        return out
    near = c.neighbourhood()
    read_targets = {d for _, t, d, _ in c.edges if t == "CAN_READ"}
    targets = sorted(set(c.ev.assets)) or sorted(x for x in c.ev.cut_off_entities if x in near and x in read_targets)
    sources = [start] + [x for x in on_paths(c) if x not in targets and x != start]
    k = 0
    for t in targets[:2]:
        for src in sources[:3]:
            if src == start:
                pos = (
                    f"It was established that {nm(c, src, k)} is able to reach {nm(c, t, k + 1)} over a "
                    "qualifying path."
                )
                neg = (
                    f"It was established that {nm(c, src, k)} is unable to reach {nm(c, t, k + 1)} over any "
                    "qualifying path."
                )
            else:  # an entity part-way: only the alert's own paths are in question
                pos = (
                    f"It was established that one of the alert's remaining qualifying paths runs from {nm(c, src, k)} "
                    f"on to {nm(c, t, k + 1)}."
                )
                neg = (
                    f"It was established that none of the alert's remaining qualifying paths runs from {nm(c, src, k)} "
                    f"on to {nm(c, t, k + 1)}."
                )
            out.append(both(pos, neg, reaches(c, src, t)))
            k += 1
    for j, asset in enumerate(c.ev.assets[:2]):
        cls = "critical" if asset in c.ev.critical_assets else "high" if asset in c.ev.high_assets else None
        if cls is None:
            continue
        other = "high" if cls == "critical" else "critical"
        out.insert(
            0,
            both(
                f"The asset {nm(c, asset, j + 1)} is classified, for the purposes of this review, as of {cls} "
                "sensitivity.",
                f"The asset {nm(c, asset, j + 1)} is classified, for the purposes of this review, as of {other} "
                "sensitivity.",
                True,
            ),
        )
    return out


FIFTEENTH: list[Family] = [
    family("determination", "state", determination, 2, keep=1),
    family("run-record", "run", run_record, 2),
    family("account-effect", "account", account_effect, 5),
    family("checklist", "account", checklist, 2, keep=1),
    family("control-table", "account", control_table, 5),
    family("route-table", "route", route_table, 2),
    family("respectively", "route", respectively, 2, keep=1),
    family("counts", "count", counts, 2),
    family("distance", "hops", distance, 2),
    family("score", "score", scoring, 2),
    family("relationships", "link", relationships, 2, keep=1),
    family("traversal", "through", traversal, 2),
    family("quotation", "quotation", quotation, 3),
    family("hedged", "modal", hedged, 3),
    family("naming", "name", naming, 2),
]

assert 12 <= len(FIFTEENTH) <= 16 and all(f.name.startswith("h15.") for f in FIFTEENTH)
