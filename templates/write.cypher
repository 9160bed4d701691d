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
