"""Response candidates from evidence, of the two allowlisted action kinds:

- block one active session route on a current qualifying path (`block-route:ROUTE`);
- revoke the active sessions of the AWS role the alert names (`revoke-sessions:ENTITY`), when the
  alert's entity is an imported AWS role (`IAMRole`, `aws_kind: role`, with its ARN). It cuts no
  qualifying path (whoever may assume the role gets new sessions), so it never completes a run.
"""

from __future__ import annotations

from typing import Any

from ..graph.model import is_valid_id
from ..graph.store import QueryFailed, Store
from ..results import PATH_CAP, Candidate, CandidatesResult, NodeView, RelView, RevocationCandidate, Status
from .paths import Evidence, _node

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


def revocation_target(candidate: RevocationCandidate) -> dict[str, Any]:
    """A revocation candidate as the revoker plans it and the `revoke-sessions` command lists it."""
    return {**candidate.model_dump(), "kind": "revoke_role_sessions"}


def revocation_candidates(store: Store, alert_id: str) -> list[dict[str, Any]]:
    """The alert's session-revocation candidate, as `get_response_candidates` lists it, read with
    two look-ups by id instead of a whole investigation (the `revoke-sessions` command and plans);
    [] for any other alert, an unknown one, or a failed read."""
    if not is_valid_id(alert_id):
        return []
    try:
        alert = store.read("alert_by_id", {"id": alert_id})
        entity = str(alert[0]["props"].get("entity_id") or "") if alert else ""
        rows = store.read("entity_by_id", {"id": entity}) if is_valid_id(entity) else []
    except QueryFailed:
        return []
    candidate = revocation_candidate(alert_id, _node(rows[0])) if rows else None
    return [] if candidate is None else [revocation_target(candidate)]


def build_candidates(ev: Evidence, path_cap: int = PATH_CAP) -> CandidatesResult:
    """Candidates from evidence: every active route on a current qualifying path."""
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
    revocation = revocation_candidate(ev.alert.id, ev.entity, total)
    if revocation is not None:
        message += "; the role's active sessions can be revoked (cuts no path)"
    return CandidatesResult(
        tool="get_response_candidates",
        status=Status.OK,
        message=message,
        alert_id=ev.alert.id,
        candidates=[c for _, c in candidates],
        revocations=[revocation] if revocation is not None else [],
        qualifying_paths=total,
        uncuttable_paths=uncuttable,
        truncated=ev.truncated,
    )
