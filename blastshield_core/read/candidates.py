"""Response candidates from evidence: block one active session route on a current qualifying path."""

from __future__ import annotations

from ..results import PATH_CAP, Candidate, CandidatesResult, RelView, Status
from .paths import Evidence

CANDIDATE_PREFIX = "block-route:"


def candidate_id(route_id: str) -> str:
    return f"{CANDIDATE_PREFIX}{route_id}"


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
    return CandidatesResult(
        tool="get_response_candidates",
        status=Status.OK,
        message=message,
        alert_id=ev.alert.id,
        candidates=[c for _, c in candidates],
        qualifying_paths=total,
        uncuttable_paths=uncuttable,
        truncated=ev.truncated,
    )
