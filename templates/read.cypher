// BlastShield read templates. Run only through GRAPH.RO_QUERY.
// Each query starts with `// name:` and `// description:` lines; values only as $params.
//
// A qualifying relationship is of an allowlisted type, not blocked (unless
// $include_blocked), not denied, and does not carry a route in $exclude_routes.
// Paths are simple (no node twice). Variable-length bounds cannot be
// parameters in FalkorDB, so each depth 1..6 has its own fixed template.
// A path row is slim: each node's properties (its id among them) and each
// relationship's [type, properties]. Ends and labels are not sent: a path runs
// forward, and every relationship type joins one pair of labels (the model's
// ENDPOINTS, which import enforces), so the reader derives them; `labels(n)`
// and per-element maps took about 40% of the server time of a page of paths.
// Paths are sorted and cut in a WITH before the RETURN projects them, so only
// the kept paths are projected. The sort key's list comprehension must not look
// like the RETURN's: FalkorDB 4.22 resolved `ORDER BY [n IN ns | n.id]` to a
// RETURN item `[n IN ns | ...]` and sorted by that instead (hence `x`).

// name: paths_to_sensitive_d1
// description: qualifying paths of 1..1 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..1]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_sensitive_d2
// description: qualifying paths of 1..2 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..2]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_sensitive_d3
// description: qualifying paths of 1..3 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..3]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_sensitive_d4
// description: qualifying paths of 1..4 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..4]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_sensitive_d5
// description: qualifying paths of 1..5 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..5]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_sensitive_d6
// description: qualifying paths of 1..6 relationships from $source_id to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit
MATCH (s:Entity {id: $source_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d1
// description: qualifying paths of 1..1 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..1]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d2
// description: qualifying paths of 1..2 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..2]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d3
// description: qualifying paths of 1..3 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..3]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d4
// description: qualifying paths of 1..4 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..4]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d5
// description: qualifying paths of 1..5 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..5]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: paths_to_target_d6
// description: qualifying paths of 1..6 relationships from $source_id to $target_id, shortest first, at most $limit
MATCH (s:Entity {id: $source_id}), (t:Entity {id: $target_id})
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(t)
WHERE ALL(r IN relationships(p) WHERE ($include_blocked OR coalesce(r.status, 'active') <> 'blocked')
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN [n IN ns | properties(n)] AS nodes,
       [r IN relationships(p) | [type(r), properties(r)]] AS rels

// name: entity_by_id
// description: one entity by id, with its labels and properties
MATCH (n:Entity {id: $id})
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props

// name: entities_by_ids
// description: the entities among $ids that exist, with their labels
UNWIND $ids AS wanted
MATCH (n:Entity {id: wanted})
RETURN n.id AS id, labels(n) AS labels

// name: alert_by_id
// description: one alert by id
MATCH (a:Alert {id: $id})
RETURN properties(a) AS props

// name: alert_evidence
// description: the start of every investigation in one round trip: a row of kind 'alert' with alert $id and, when it exists, the entity it names; then rows of kind 'path', the qualifying paths of 1..6 relationships from that entity to a DataAsset whose sensitivity is in $sensitivities, shortest first, at most $limit (the same paths as paths_to_sensitive_d6). A path row carries its nodes (its first, the entity of the alert row, left out) and relationships as the graph stores them, property keys and relationship types by id; the row of kind 'schema' names them: the graph's property keys (props) and relationship types (labels), each in id order, read by the same query so they match the rows. Projecting nodes and relationships as they are costs the server about a third less than projecting property maps
MATCH (al:Alert {id: $id})
OPTIONAL MATCH (n:Entity {id: al.entity_id})
RETURN 'alert' AS kind, properties(al) AS props, n.id AS id, labels(n) AS labels, properties(n) AS entity_props,
       null AS nodes, null AS rels
UNION ALL
CALL db.propertyKeys() YIELD propertyKey
WITH collect(propertyKey) AS keys
CALL db.relationshipTypes() YIELD relationshipType
RETURN 'schema' AS kind, keys AS props, null AS id, collect(relationshipType) AS labels, null AS entity_props,
       null AS nodes, null AS rels
UNION ALL
MATCH (al:Alert {id: $id})
WITH al.entity_id AS entity_id
MATCH (s:Entity {id: entity_id})
WITH s
MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(a:DataAsset)
WHERE a.sensitivity IN $sensitivities
  AND ALL(r IN relationships(p) WHERE coalesce(r.status, 'active') <> 'blocked'
      AND coalesce(r.permission, 'allow') <> 'deny'
      AND NOT coalesce(r.route_id, '') IN $exclude_routes)
WITH p, nodes(p) AS ns
WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
WITH p, ns
ORDER BY length(p), [x IN ns | x.id]
LIMIT $limit
RETURN 'path' AS kind, null AS props, null AS id, null AS labels, null AS entity_props,
       ns[1..] AS nodes, relationships(p) AS rels

// name: list_alerts
// description: every alert, ordered by id
MATCH (a:Alert)
RETURN properties(a) AS props
ORDER BY a.id

// name: queue_alerts
// description: every alert's id, title, entity id, kind and signals (JSON text), ordered by id: what the queue shows of an alert itself
MATCH (a:Alert)
RETURN a.id AS id, a.title AS title, a.entity_id AS entity_id, a.kind AS kind, a.signals AS signals
ORDER BY a.id

// name: alert_path_ends
// description: the queue's view of the standard investigation for many entities at once: one row for each id in $entity_ids that is in the graph, with [hops, asset id, asset sensitivity] of its qualifying paths of 1..6 relationships to a DataAsset whose sensitivity is in $sensitivities, in the order of alert_evidence (shortest first, then by node ids), at most $limit (the same paths, cut the same way, as alert_evidence and paths_to_sensitive_d6; an empty list when there is none). Each entity's paths are sorted and cut in their own subquery, so at most $limit are kept per entity; the caller sends a bounded chunk of ids. `WITH s` before the path match keeps the plan starting from the entity (without it the planner scanned every DataAsset and traversed backwards)
UNWIND $entity_ids AS eid
MATCH (s:Entity {id: eid})
CALL {
  WITH s
  MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(a:DataAsset)
  WHERE a.sensitivity IN $sensitivities
    AND ALL(r IN relationships(p) WHERE coalesce(r.status, 'active') <> 'blocked'
        AND coalesce(r.permission, 'allow') <> 'deny')
  WITH p, a, nodes(p) AS ns
  WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
  WITH length(p) AS hops, [x IN ns | x.id] AS key, a.id AS asset, a.sensitivity AS sensitivity
  ORDER BY hops, key
  LIMIT $limit
  RETURN collect([hops, asset, sensitivity]) AS ends
}
RETURN s.id AS entity_id, ends

// name: alert_path_ends_on_account
// description: alert_path_ends as the account sees it: a relationship blocked in the graph still qualifies when its route_id is in $open_routes (routes blocked in the graph only, or whose block was undone on the account), so the paths those blocks cut count as open; everything else as alert_path_ends (same order, same cut at $limit per entity)
UNWIND $entity_ids AS eid
MATCH (s:Entity {id: eid})
CALL {
  WITH s
  MATCH p = (s)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*1..6]->(a:DataAsset)
  WHERE a.sensitivity IN $sensitivities
    AND ALL(r IN relationships(p) WHERE (coalesce(r.status, 'active') <> 'blocked' OR r.route_id IN $open_routes)
        AND coalesce(r.permission, 'allow') <> 'deny')
  WITH p, a, nodes(p) AS ns
  WHERE ALL(i IN range(0, size(ns) - 2) WHERE NOT ns[i] IN ns[i + 1..])
  WITH length(p) AS hops, [x IN ns | x.id] AS key, a.id AS asset, a.sensitivity AS sensitivity
  ORDER BY hops, key
  LIMIT $limit
  RETURN collect([hops, asset, sensitivity]) AS ends
}
RETURN s.id AS entity_id, ends

// name: expand_frontier
// description: one level of reachability expansion: the qualifying relationships (not carrying a route in $exclude_routes) leaving the entities in $frontier, one row each: the internal node ids of its source and of the entity it reaches (`node`, for expand_frontier_nodes; blast radius orders its critical paths from these pairs), that entity, and the relationship's type (an entity reached from two frontier entities comes twice; the caller drops those already seen). Each frontier id is looked up by index first, so the plan starts from the frontier rather than scanning candidate targets. The traversal is untyped and the allowlist is a filter: matching five types in the pattern ran one traversal per type and took 1.5-1.7x as long on a dense graph
UNWIND $frontier AS fid
MATCH (n:Entity {id: fid})
WITH n
MATCH (n)-[r]->(m)
WHERE coalesce(r.status, 'active') <> 'blocked'
  AND coalesce(r.permission, 'allow') <> 'deny'
  AND NOT coalesce(r.route_id, '') IN $exclude_routes
  AND type(r) IN ['HAS_SESSION', 'CAN_ACCESS', 'RUNS_AS', 'CAN_ASSUME', 'CAN_ESCALATE', 'CAN_READ']
RETURN DISTINCT ID(n) AS source, ID(m) AS node, m.id AS id, type(r) AS type, m.name AS name, m.sensitivity AS sensitivity

// name: expand_frontier_nodes
// description: expand_frontier from the nodes with the internal ids in $nodes (as expand_frontier and this template returned them in `node`): each is found by id, without the index lookup by entity id, which was about a quarter of a breadth-first expansion on a dense graph. An internal id names a node only while the graph does not change; the caller checks the graph's version around the whole expansion
UNWIND $nodes AS nid
MATCH (n)
WHERE ID(n) = nid
WITH n
MATCH (n)-[r]->(m)
WHERE coalesce(r.status, 'active') <> 'blocked'
  AND coalesce(r.permission, 'allow') <> 'deny'
  AND NOT coalesce(r.route_id, '') IN $exclude_routes
  AND type(r) IN ['HAS_SESSION', 'CAN_ACCESS', 'RUNS_AS', 'CAN_ASSUME', 'CAN_ESCALATE', 'CAN_READ']
RETURN DISTINCT ID(n) AS source, ID(m) AS node, m.id AS id, type(r) AS type, m.name AS name, m.sensitivity AS sensitivity

// name: relationship_by_ends
// description: the relationships of type $type from $source to $target, found through the ends' id index
MATCH (a:Entity {id: $source})-[r]->(b:Entity {id: $target})
WHERE type(r) = $type
RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props

// name: routes_by_ids
// description: the routed relationships whose route_id is in $route_ids: a scan of the two routed types, one match per type, with every route compared to each id (no index holds every route id, see graph/routes.py: callers that know a relationship's ends use routes_at_ends or relationship_by_ends, a route BlastShield blocked is read by blocked_route, and many ids are looked up by route_ids_in_range)
MATCH (a)-[r:HAS_SESSION]->(b)
WHERE r.route_id IN $route_ids
RETURN r.route_id AS route_id, type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props
UNION ALL
MATCH (a)-[r:CAN_ACCESS]->(b)
WHERE r.route_id IN $route_ids
RETURN r.route_id AS route_id, type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props

// name: routes_at_ends
// description: the route id (null where it has none) of each relationship in $rows (source, type, target) that the graph has, found through the ends' id index
UNWIND $rows AS row
MATCH (a:Entity {id: row.source})-[r]->(b:Entity {id: row.target})
WHERE type(r) = row.type
RETURN a.id AS source, type(r) AS type, b.id AS target, r.route_id AS route_id

// name: blocked_route
// description: the route $route_id if BlastShield blocked it (status blocked with a blocked_by_run), one match per routed type, each read from its blocked_by_run index; the columns of routes_by_ids
MATCH (a)-[r:HAS_SESSION]->(b)
WHERE r.blocked_by_run >= '' AND r.route_id = $route_id AND r.status = 'blocked'
RETURN r.route_id AS route_id, type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props
UNION ALL
MATCH (a)-[r:CAN_ACCESS]->(b)
WHERE r.blocked_by_run >= '' AND r.route_id = $route_id AND r.status = 'blocked'
RETURN r.route_id AS route_id, type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props

// name: route_ids_in_range
// description: the route ids from $low to $high (inclusive, in byte order) of every relationship of one allowlisted routed type: one scan comparing each route twice, for a caller that compares many ids itself (graph/routes.py); at most every route of the type
MATCH ()-[r:{type}]->()
WHERE r.route_id >= $low AND r.route_id <= $high
RETURN r.route_id AS route_id

// name: index_status
// description: every index of the graph with its status (OPERATIONAL once built)
CALL db.indexes() YIELD label, properties, status
RETURN label, properties, status

// name: graph_counts
// description: how many entities, relationships and alerts the graph holds
MATCH (n)
WITH count(n) AS nodes
OPTIONAL MATCH ()-[r]->()
WITH nodes, count(r) AS relationships
OPTIONAL MATCH (a:Alert)
RETURN nodes, relationships, count(a) AS alerts

// name: expand_frontier_any_status
// description: one level of the evidence neighbourhood: every allowlisted relationship (any status or permission) leaving $frontier, at most $limit
UNWIND $frontier AS fid
MATCH (n:Entity {id: fid})-[r:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ]->(m:Entity)
RETURN n.id AS source, type(r) AS type, properties(r) AS rel_props, m.id AS id, labels(m) AS labels, properties(m) AS props
LIMIT $limit

// name: identities_reaching
// description: identities that reach entity $id over 0..5 qualifying relationships (the identities whose access can use a relationship leaving $id), the first $limit by id
MATCH (t:Entity {id: $id})
MATCH p = (i:Identity)-[:HAS_SESSION|CAN_ACCESS|RUNS_AS|CAN_ASSUME|CAN_ESCALATE|CAN_READ*0..5]->(t)
WHERE ALL(r IN relationships(p) WHERE coalesce(r.status, 'active') <> 'blocked'
      AND coalesce(r.permission, 'allow') <> 'deny')
RETURN DISTINCT i.id AS id, labels(i) AS labels, properties(i) AS props
ORDER BY id
LIMIT $limit

// name: role_assumers
// description: the principals and workloads that may assume role $id now (an active, allowed CAN_ASSUME or RUNS_AS into it), the first $limit by id
MATCH (p:Entity)-[r:CAN_ASSUME|RUNS_AS]->(t:Entity {id: $id})
WHERE coalesce(r.status, 'active') <> 'blocked' AND coalesce(r.permission, 'allow') <> 'deny'
RETURN DISTINCT p.id AS id, labels(p) AS labels, properties(p) AS props
ORDER BY id
LIMIT $limit

// name: export_nodes
// description: one page of entities for export, ordered by id: skip $skip, at most $limit
MATCH (n:Entity)
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props
ORDER BY n.id
SKIP $skip
LIMIT $limit

// name: export_edges
// description: one page of relationships between entities for export, ordered by source, type, target: skip $skip, at most $limit
MATCH (a:Entity)-[r]->(b:Entity)
RETURN a.id AS source, type(r) AS type, b.id AS target, properties(r) AS props
ORDER BY source, type, target
SKIP $skip
LIMIT $limit

// name: blastshield_blocks
// description: every route BlastShield blocked (status blocked with a blocked_by_run), with who blocked it and when and the relationship's ends; one match per routed type, each read from its blocked_by_run index (a range over every string is an index scan, IS NOT NULL is not; blocked_by_run is always a run id string)
MATCH (a)-[r:HAS_SESSION]->(b)
WHERE r.blocked_by_run >= '' AND r.status = 'blocked'
RETURN r.route_id AS route_id, r.blocked_by_run AS blocked_by_run, r.blocked_at AS blocked_at,
       coalesce(r.blocked_by, '') AS blocked_by, a.id AS source, type(r) AS type, b.id AS target
UNION ALL
MATCH (a)-[r:CAN_ACCESS]->(b)
WHERE r.blocked_by_run >= '' AND r.status = 'blocked'
RETURN r.route_id AS route_id, r.blocked_by_run AS blocked_by_run, r.blocked_at AS blocked_at,
       coalesce(r.blocked_by, '') AS blocked_by, a.id AS source, type(r) AS type, b.id AS target
