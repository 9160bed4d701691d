// The action service's one write. Used only by blastshield_core/act.py.

// name: block_route_on_path
// description: block route $route_id, but only if it is active and lies on a current qualifying path from $source_id to a high/critical asset; the check and the write are one query, so two runs cannot both block it
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE coalesce(r.status, 'active') <> 'blocked'
      AND coalesce(r.permission, 'allow') <> 'deny')
  AND ANY(r IN relationships(p) WHERE r.route_id = $route_id)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p
LIMIT 1
UNWIND relationships(p) AS r
WITH r
WHERE r.route_id = $route_id
SET r.status = 'blocked', r.blocked_by_run = $run_id, r.blocked_at = $at, r.blocked_by = $actor
RETURN count(r) AS blocked, collect([startNode(r).id, type(r), endNode(r).id]) AS ends

// name: release_route
// description: make route $route_id active again, but only if BlastShield blocked it (status blocked with a blocked_by_run); the check and the write are one query, one match per routed type, each read from its blocked_by_run index (no index holds every route id); returns who had blocked it and the relationship's ends
MATCH (a)-[r:HAS_SESSION]->(b)
WHERE r.blocked_by_run >= '' AND r.route_id = $route_id AND r.status = 'blocked'
WITH a, r, b, r.blocked_by_run AS run, r.blocked_at AS at, r.blocked_by AS by
SET r.status = 'active', r.blocked_by_run = NULL, r.blocked_at = NULL, r.blocked_by = NULL
RETURN run AS blocked_by_run, at AS blocked_at, by AS blocked_by, a.id AS source, type(r) AS type, b.id AS target
UNION ALL
MATCH (a)-[r:CAN_ACCESS]->(b)
WHERE r.blocked_by_run >= '' AND r.route_id = $route_id AND r.status = 'blocked'
WITH a, r, b, r.blocked_by_run AS run, r.blocked_at AS at, r.blocked_by AS by
SET r.status = 'active', r.blocked_by_run = NULL, r.blocked_at = NULL, r.blocked_by = NULL
RETURN run AS blocked_by_run, at AS blocked_at, by AS blocked_by, a.id AS source, type(r) AS type, b.id AS target
