// BlastShield re-sync templates: used only by the import path (ingest.py) when
// an AWS account is imported again. Values only as $params; `{type}` only from
// the allowlist in blastshield_core.model.

// name: snapshot_entities
// description: ids of the entities an earlier import of these AWS accounts ($accounts) wrote (property aws_snapshot)
MATCH (n:Entity)
WHERE n.aws_snapshot IN $accounts
RETURN n.id AS id

// name: edges_from_entities
// description: every relationship leaving the entities $ids, as source, type, target ids
UNWIND $ids AS id
MATCH (a:Entity {id: id})-[r]->(b:Entity)
RETURN a.id AS source, type(r) AS type, b.id AS target

// name: delete_entities
// description: remove the entities $ids with their relationships
UNWIND $ids AS id
MATCH (n:Entity {id: id})
DETACH DELETE n
RETURN count(n) AS removed

// name: delete_alerts_of_entities
// description: remove the alerts whose entity is one of $ids
MATCH (a:Alert)
WHERE a.entity_id IN $ids
DELETE a
RETURN count(a) AS removed

// name: delete_edges
// description: remove relationships of one allowlisted type from $rows (source, target)
UNWIND $rows AS row
MATCH (a:Entity {id: row.source})-[r:{type}]->(b:Entity {id: row.target})
DELETE r
RETURN count(r) AS removed
