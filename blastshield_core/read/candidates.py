"""Response candidates from evidence, of the two allowlisted action kinds:

- block one active session route on a current qualifying path (`block-route:ROUTE`);
- revoke sessions already issued (`revoke-sessions:ENTITY`): of the AWS role the alert names, when
  the alert's entity is an imported AWS role (`IAMRole`, `aws_kind: role`, with its ARN); for an
  alert on an imported AWS user (`Identity`, `aws_kind: user`), the user's own sessions (those its
  keys obtained through sts:GetSessionToken) and the sessions of each AWS role on the user's
  qualifying paths, those open now and those cut only at a credential (a key deactivated now does
  not end the role sessions assumed with it). A revocation cuts no qualifying path (whoever
  may assume the role, or holds an active key, gets new sessions), so it never completes a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..graph.store import Store
from ..results import (
    PATH_CAP,
    AccessPath,
    Candidate,
    CandidatesResult,
    NodeView,
    RelView,
    RevocationCandidate,
    SessionCollateral,
    Status,
)
from .paths import Evidence

CANDIDATE_PREFIX = "block-route:"
REVOKE_PREFIX = "revoke-sessions:"


def candidate_id(route_id: str) -> str:
    return f"{CANDIDATE_PREFIX}{route_id}"


def revocation_candidate(alert_id: str, entity: NodeView, paths: int = 0) -> RevocationCandidate | None:
    """The session revocation of the alert's entity when it is an imported AWS role, else None."""
    props = entity.properties
    arn = str(props.get("arn") or "")
    if entity.label != "IAMRole" or props.get("aws_kind") != "role" or ":role/" not in arn:
        return None
    return RevocationCandidate(
        id=f"{REVOKE_PREFIX}{entity.id}",
        entity_id=entity.id,
        role=arn.rsplit("/", 1)[-1],
        arn=arn,
        account=str(props.get("account") or ""),
        remaining_if_applied=paths,
        reason=(
            f"alert {alert_id} names role {arn}: its sessions issued before now can be revoked (stolen ones"
            f" included); this cuts none of the {paths} qualifying path(s): whoever may assume the role gets"
            " new sessions"
        ),
    )


def _aws_user(entity: NodeView) -> str:
    """The ARN of an imported AWS user's Identity, else ''."""
    arn = str(entity.properties.get("arn") or "")
    return arn if entity.label == "Identity" and entity.properties.get("aws_kind") == "user" and ":user/" in arn else ""


def user_revocation_candidate(alert_id: str, entity: NodeView, paths: int = 0) -> RevocationCandidate | None:
    """The revocation of the user's own sessions when the alert's entity is an imported AWS user, else None."""
    arn = _aws_user(entity)
    if not arn:
        return None
    user = arn.rsplit("/", 1)[-1]
    return RevocationCandidate(
        id=f"{REVOKE_PREFIX}{entity.id}",
        action="revoke_user_sessions",
        principal="user",
        entity_id=entity.id,
        role=user,
        arn=arn,
        account=str(entity.properties.get("account") or ""),
        remaining_if_applied=paths,
        reason=(
            f"alert {alert_id} names user {arn}: the sessions its access keys obtained through"
            " sts:GetSessionToken before now can be revoked (stolen ones included; deactivating a key does not end"
            f" them); this cuts none of the {paths} qualifying path(s)"
        ),
        collateral=SessionCollateral(summary=f"only {user}'s own sessions: no other principal loses a session"),
    )


def path_role_revocations(
    alert_id: str, entity: NodeView, paths: Sequence[AccessPath], cut: Sequence[AccessPath] = (), total: int = 0
) -> list[RevocationCandidate]:
    """For an alert on an imported AWS user: the revocation of each AWS role on its qualifying paths
    (`paths`, open now) or on those cut only at a credential route (`cut`), in order of first
    appearance. Their collateral is read from the graph by the caller."""
    if not _aws_user(entity):
        return []
    on: dict[str, tuple[NodeView, int]] = {}
    for path in (*paths, *cut):
        for node in path.nodes[1:]:
            arn = str(node.properties.get("arn") or "")
            if node.label != "IAMRole" or node.properties.get("aws_kind") != "role" or ":role/" not in arn:
                continue
            seen = on.get(node.id)
            on[node.id] = (node, (seen[1] if seen else 0) + 1)
    out = []
    for node, count in on.values():
        arn = str(node.properties["arn"])
        out.append(
            RevocationCandidate(
                id=f"{REVOKE_PREFIX}{node.id}",
                entity_id=node.id,
                role=arn.rsplit("/", 1)[-1],
                arn=arn,
                account=str(node.properties.get("account") or ""),
                remaining_if_applied=total,
                on_paths=True,
                reason=(
                    f"role {arn} is on {count} of the qualifying path(s) of alert {alert_id}'s user"
                    f" {entity.properties.get('arn')}: its sessions issued before now (those assumed with the user's"
                    f" keys, stolen ones included) can be revoked; this cuts none of the {total} qualifying path(s)"
                ),
            )
        )
    return out


COLLATERAL_SHOWN = 20  # others named in a revocation's collateral (all are counted)
COLLATERAL_READ = 1000  # assumers read for one role


def role_session_collateral(store: Store, candidate: RevocationCandidate, entity: NodeView) -> SessionCollateral:
    """Who else loses sessions when `candidate`'s role has its sessions revoked: every principal or
    workload the graph lets assume the role (an active, allowed `CAN_ASSUME` or `RUNS_AS` into it),
    other than the alert's own entity (a user is named by its policies node's ARN). Raises QueryFailed."""
    rows = store.read("role_assumers", {"id": candidate.entity_id, "limit": COLLATERAL_READ})
    own = {entity.id, str(entity.properties.get("arn") or "")}
    others: list[str] = []
    for row in rows:
        props = row["props"]
        arn = str(props.get("arn") or "")
        if row["id"] in own or (arn and arn in own):
            continue
        others.append(arn if props.get("aws_kind") == "user_policies" and arn else str(row["id"]))
    count = len(others)
    more = "" if len(rows) < COLLATERAL_READ else f" (the first {COLLATERAL_READ} read)"
    if not others:
        summary = (
            f"no other principal or workload in the graph may assume {candidate.role}: only sessions of it"
            " obtained through the alert's entity are revoked"
        )
    else:
        shown = ", ".join(others[:COLLATERAL_SHOWN]) + (", ..." if count > COLLATERAL_SHOWN else "")
        summary = (
            f"{count} other principal(s) or workload(s){more} may assume {candidate.role} and lose their sessions"
            f" of it issued before the revocation: {shown}"
        )
    return SessionCollateral(others=others[:COLLATERAL_SHOWN], other_count=count, summary=summary)


def revocation_target(candidate: RevocationCandidate) -> dict[str, Any]:
    """A revocation candidate as the revoker plans it and the `revoke-sessions` command lists it."""
    return {**candidate.model_dump(mode="json"), "kind": candidate.action}


def build_candidates(ev: Evidence, path_cap: int = PATH_CAP, cut_off: Sequence[AccessPath] = ()) -> CandidatesResult:
    """Candidates from evidence: every active route on a current qualifying path, and the session
    revocations the alert's entity offers (`cut_off`: for a user, its paths cut only at a credential route)."""
    total = len(ev.paths)
    by_route: dict[str, tuple[RelView, list[int]]] = {}
    for index, path in enumerate(ev.paths):
        for rel in path.relationships:
            route = rel.properties.get("route_id")
            if isinstance(route, str) and rel.properties.get("status", "active") == "active":
                entry = by_route.setdefault(route, (rel, []))
                if index not in entry[1]:
                    entry[1].append(index)
    candidates = []
    for route, (rel, cut) in by_route.items():
        shortest = min(ev.paths[i].hops for i in cut)
        remaining = total - len(cut)
        candidates.append(
            (
                (-len(cut), shortest, route),
                Candidate(
                    id=candidate_id(route),
                    route_id=route,
                    relationship=rel,
                    paths_cut=len(cut),
                    cut_paths=cut,
                    remaining_if_applied=remaining,
                    reason=(
                        f"route {route} ({rel.source} -{rel.type}-> {rel.target}) carries {len(cut)} of {total}"
                        f" qualifying path(s), the shortest {shortest} hops; {remaining} would remain"
                        + (" (path list truncated: more may exist)" if ev.truncated else "")
                    ),
                ),
            )
        )
    candidates.sort(key=lambda pair: pair[0])
    covered = {i for _, c in candidates for i in c.cut_paths}
    uncuttable = [i for i in range(total) if i not in covered]
    if not total:
        message = "no qualifying path: nothing to contain"
    elif not candidates:
        message = f"{total} qualifying path(s) but none passes through an active session route"
    else:
        message = f"{len(candidates)} candidate(s) for {total} qualifying path(s)"
    revocations = [r for r in (revocation_candidate(ev.alert.id, ev.entity, total),) if r is not None]
    if revocations:
        message += "; the role's active sessions can be revoked (cuts no path)"
    user = user_revocation_candidate(ev.alert.id, ev.entity, total)
    if user is not None:
        roles = path_role_revocations(ev.alert.id, ev.entity, ev.paths, cut_off, total)
        revocations = [user, *roles]
        message += "; the user's issued sessions" + (
            f" and those of {len(roles)} role(s) on its paths" if roles else ""
        )
        message += " can be revoked (cuts no path)"
    return CandidatesResult(
        tool="get_response_candidates",
        status=Status.OK,
        message=message,
        alert_id=ev.alert.id,
        candidates=[c for _, c in candidates],
        revocations=revocations,
        qualifying_paths=total,
        uncuttable_paths=uncuttable,
        truncated=ev.truncated,
    )
