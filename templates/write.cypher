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

// name: create_nodes
// description: create entities of one allowlisted label from $rows (id, props) in a graph known not to hold them (a fresh import's staging graph; ids were checked unique); returns each id with its internal node id
UNWIND $rows AS row
CREATE (n:Entity:{label})
SET n = row.props
RETURN n.id AS id, id(n) AS node

// name: create_edges
// description: create relationships of one allowlisted type from $rows (source and target as internal node ids returned by create_nodes, props) in a fresh import's staging graph (each source, type and target was checked unique)
UNWIND $rows AS row
MATCH (a) WHERE id(a) = row.source
MATCH (b) WHERE id(b) = row.target
CREATE (a)-[r:{type}]->(b)
SET r = row.props

// name: upsert_alerts
// description: create or update alerts from $rows (id, title, entity_id, kind, signals as JSON text)
UNWIND $rows AS row
MERGE (a:Alert {id: row.id})
SET a.title = row.title, a.entity_id = row.entity_id, a.kind = row.kind, a.signals = row.signals
