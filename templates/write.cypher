// BlastShield write templates: import and seeding only (the action service has
// its own). `{label}` and `{type}` are filled only from the allowlists in
// blastshield_core.model, never from caller text; values only as $params.

// name: create_entity_index
// description: index on the id every entity carries
CREATE INDEX FOR (n:Entity) ON (n.id)

// name: create_alert_index
// description: index on alert ids
CREATE INDEX FOR (a:Alert) ON (a.id)

// name: upsert_nodes
// description: create entities of one allowlisted label from $rows (id, props), or replace the properties of existing ones (props include id and name)
UNWIND $rows AS row
MERGE (n:Entity:{label} {id: row.id})
SET n = row.props

// name: upsert_edges
// description: create relationships of one allowlisted type from $rows (source, target, props), or replace the properties of existing ones
UNWIND $rows AS row
MATCH (a:Entity {id: row.source}), (b:Entity {id: row.target})
MERGE (a)-[r:{type}]->(b)
SET r = row.props

// name: upsert_alerts
// description: create or update alerts from $rows (id, title, entity_id, kind, signals as JSON text)
UNWIND $rows AS row
MERGE (a:Alert {id: row.id})
SET a.title = row.title, a.entity_id = row.entity_id, a.kind = row.kind, a.signals = row.signals

// name: create_route_block_index_session
// description: index the run that blocked a HAS_SESSION route; only routes BlastShield blocked have the property, so the index holds just those (finding them reads it, not every relationship; an index on status held every route and cost a third more server memory)
CREATE INDEX FOR ()-[r:HAS_SESSION]-() ON (r.blocked_by_run)

// name: create_route_block_index_access
// description: the same index for CAN_ACCESS (see create_route_block_index_session)
CREATE INDEX FOR ()-[r:CAN_ACCESS]-() ON (r.blocked_by_run)

// name: restore_blocks
// description: put back the blocks BlastShield applied: $blocks lists each block's route_id, the relationship that now carries that route (source, type, target) and blocked_by_run, blocked_at, blocked_by; each relationship is found through its ends' id index and blocked only if it still has the route id; returns the routes found
UNWIND $blocks AS b
MATCH (a:Entity {id: b.source})-[r]->(c:Entity {id: b.target})
WHERE type(r) = b.type AND r.route_id = b.route_id
SET r.status = 'blocked', r.blocked_by_run = b.blocked_by_run, r.blocked_at = b.blocked_at, r.blocked_by = b.blocked_by
RETURN r.route_id AS route_id
