// BlastShield entity search (read/entities.py). Run only through GRAPH.RO_QUERY; values only as $params.

// name: search_entities
// description: entities whose id, name or ARN contains $q (lower case), of the label $label and account $account (null: any), best first (exact, then prefix, then name, then anywhere; shorter names first), at most $limit
MATCH (n:Entity)
WITH n, toLower(n.id) AS lid, toLower(coalesce(n.name, '')) AS lname, toLower(coalesce(n.arn, '')) AS larn
WHERE (lid CONTAINS $q OR lname CONTAINS $q OR larn CONTAINS $q)
  AND ($label IS NULL OR $label IN labels(n))
  AND ($account IS NULL OR n.account = $account)
WITH n, CASE
    WHEN lid = $q OR larn = $q OR lname = $q THEN 0
    WHEN lname STARTS WITH $q OR lid STARTS WITH $q THEN 1
    WHEN lname CONTAINS $q THEN 2
    ELSE 3 END AS rank
ORDER BY rank, size(coalesce(n.name, n.id)), n.id
LIMIT $limit
RETURN n.id AS id, labels(n) AS labels, n.name AS name, n.arn AS arn, n.account AS account, rank

// name: entity_match_by_id
// description: the entity whose id is exactly $id (the id index), as search_entities returns a match of rank 0 (exact)
MATCH (n:Entity {id: $id})
WITH n ORDER BY size(coalesce(n.name, n.id)), n.id
LIMIT 1
RETURN n.id AS id, labels(n) AS labels, n.name AS name, n.arn AS arn, n.account AS account, 0 AS rank

// name: principals_of_accounts
// description: the principals of the accounts in $accounts: users and outside principals (Identity) and roles (IAMRole of aws_kind role), by id, at most $limit
MATCH (n:Entity)
WHERE n.account IN $accounts AND (n:Identity OR (n:IAMRole AND n.aws_kind = 'role'))
WITH n ORDER BY n.id LIMIT $limit
RETURN n.id AS id, labels(n) AS labels, n.name AS name, n.arn AS arn, n.account AS account

// name: sessions_by_access_key
// description: the credential sessions whose access key id is exactly $key (from `iam list-access-keys` of a collection), as search_entities returns a match of rank 0, at most $limit
MATCH (n:Session)
WHERE n.access_key_id = $key
WITH n ORDER BY n.id
LIMIT $limit
RETURN n.id AS id, labels(n) AS labels, n.name AS name, n.arn AS arn, n.account AS account, 0 AS rank

// name: alerts_naming_access_key
// description: the alerts whose signals (JSON text) contain $key: the caller checks the signal's field itself; at most $limit, by id
MATCH (a:Alert)
WHERE a.signals CONTAINS $key
WITH a ORDER BY a.id
LIMIT $limit
RETURN a.id AS id, a.entity_id AS entity_id, a.kind AS kind, a.signals AS signals
