// BlastShield in-place write templates: used only by the in-place write path
// (graph/inplace.py) for small documents (an analyst's alert, one principal's
// slice). The parts of one write are joined into a single query (one
// GRAPH.QUERY commits whole or not at all); each part reads its own `$rows`.
// `{label}` and `{type}` only from the allowlists in blastshield_core.model.

// name: slice_sessions
// description: the sessions the identity $id has (its HAS_SESSION targets), by id
MATCH (p:Entity {id: $id})-[:HAS_SESSION]->(s:Entity)
RETURN s.id AS id

// name: slice_edges
// description: every relationship leaving the entities $ids, as source, type, target ids and the route id
UNWIND $ids AS id
MATCH (a:Entity {id: id})-[r]->(b:Entity)
RETURN a.id AS source, type(r) AS type, b.id AS target, r.route_id AS route_id

// name: inplace_delete_edges
// description: part of an in-place write: remove relationships of one allowlisted type from $rows (source, target)
UNWIND $rows AS row
MATCH (a:Entity {id: row.source})-[r:{type}]->(b:Entity {id: row.target})
DELETE r

// name: inplace_delete_alerts_of
// description: part of an in-place write: remove the alerts whose entity is one of $rows (ids)
MATCH (a:Alert)
WHERE a.entity_id IN $rows
DELETE a

// name: inplace_delete_entities
// description: part of an in-place write: remove the entities $rows (ids) with their relationships
UNWIND $rows AS id
MATCH (n:Entity {id: id})
DETACH DELETE n

// name: inplace_upsert_nodes
// description: part of an in-place write: create entities of one allowlisted label from $rows (id, props), or replace the properties of existing ones (props include id and name)
UNWIND $rows AS row
MERGE (n:Entity:{label} {id: row.id})
SET n = row.props

// name: inplace_upsert_edges
// description: part of an in-place write: create relationships of one allowlisted type from $rows (source, target, props), or replace the properties of existing ones (a kept block is already in props)
UNWIND $rows AS row
MATCH (a:Entity {id: row.source}), (b:Entity {id: row.target})
MERGE (a)-[r:{type}]->(b)
SET r = row.props

// name: inplace_upsert_alerts
// description: part of an in-place write: create or update alerts from $rows (id, title, entity_id, kind, signals as JSON text)
UNWIND $rows AS row
MERGE (a:Alert {id: row.id})
SET a.title = row.title, a.entity_id = row.entity_id, a.kind = row.kind, a.signals = row.signals
