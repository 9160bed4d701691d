// Audit records of containment runs and admin actions, in their own graph (never the scenario graph).
// Written only by blastshield_core/audit.py through Store.execute_audit_write.
// Every record (Run, Step, Event) is appended to one hash chain: the ChainHead holds the
// last record's sequence number and hash, and an append only happens if the head is still
// the one the writer hashed against (compare-and-set inside the write query).

// name: audit_run_index
// description: index on run ids
CREATE INDEX FOR (r:Run) ON (r.run_id)

// name: audit_event_index
// description: index on the run an event refers to (a release names the run that blocked the route)
CREATE INDEX FOR (e:Event) ON (e.run_id)

// name: audit_chain_init
// description: create the chain head if there is none yet
MERGE (h:ChainHead {id: 'head'})
ON CREATE SET h.seq = 0, h.hash = $genesis
RETURN h.seq AS seq, h.hash AS hash

// name: audit_chain_head
// description: the chain head (last record's sequence number and hash)
MATCH (h:ChainHead {id: 'head'})
RETURN h.seq AS seq, h.hash AS hash

// name: audit_create_run
// description: record a new run, appended to the chain if the head is still ($prev_seq, $prev_hash)
MATCH (h:ChainHead {id: 'head'})
WHERE h.seq = $prev_seq AND h.hash = $prev_hash
SET h.seq = $chain_seq, h.hash = $hash
CREATE (r:Run {run_id: $run_id, alert_id: $alert_id, decider: $decider, max_actions: $max_actions,
               state: $state, reason: $reason, started_at: $started_at, finished_at: $finished_at,
               remaining_paths: $remaining_paths, actions: $actions, actor: $actor,
               owner_pid: $owner_pid, owner_host: $owner_host, owner_started: $owner_started,
               created: $created, v: $v, chain_seq: $chain_seq, prev_hash: $prev_hash, hash: $hash})
RETURN r.run_id AS run_id

// name: audit_update_run
// description: update a run's state, reason, actions, remaining path count and end time, recorded as a chained RunUpdate, if the head is still ($prev_seq, $prev_hash)
MATCH (h:ChainHead {id: 'head'})
WHERE h.seq = $prev_seq AND h.hash = $prev_hash
MATCH (r:Run {run_id: $run_id})
WHERE r.chain_seq IS NOT NULL
SET h.seq = $chain_seq, h.hash = $hash,
    r.state = $state, r.reason = $reason, r.finished_at = $finished_at,
    r.remaining_paths = $remaining_paths, r.actions = $actions
CREATE (r)-[:HAS_UPDATE]->(:RunUpdate {run_id: $run_id, state: $state, reason: $reason, finished_at: $finished_at,
                                       remaining_paths: $remaining_paths, actions: $actions, v: $v,
                                       chain_seq: $chain_seq, prev_hash: $prev_hash, hash: $hash})
RETURN r.run_id AS run_id

// name: audit_add_step
// description: append one step (with its slice of the tool trace) to a run and to the chain, if the head is still ($prev_seq, $prev_hash)
MATCH (h:ChainHead {id: 'head'})
WHERE h.seq = $prev_seq AND h.hash = $prev_hash
MATCH (r:Run {run_id: $run_id})
WHERE r.chain_seq IS NOT NULL
SET h.seq = $chain_seq, h.hash = $hash
CREATE (r)-[:HAS_STEP]->(:Step {run_id: $run_id, seq: $seq, kind: $kind, at: $at, summary: $summary,
                                data: $data, trace: $trace, run_prev_hash: $run_prev_hash, v: $v,
                                chain_seq: $chain_seq, prev_hash: $prev_hash, hash: $hash})
RETURN $seq AS seq

// name: audit_end_running_run
// description: end a run that is still running (interrupted or abandoned) with its closing step, in one write; nothing if it is no longer running or the head moved
MATCH (h:ChainHead {id: 'head'})
WHERE h.seq = $prev_seq AND h.hash = $prev_hash
MATCH (r:Run {run_id: $run_id})
WHERE r.state = 'running' AND r.chain_seq IS NOT NULL
SET h.seq = $chain_seq, h.hash = $hash,
    r.state = $state, r.reason = $reason, r.finished_at = $at
CREATE (r)-[:HAS_STEP]->(:Step {run_id: $run_id, seq: $seq, kind: $kind, at: $at, summary: $summary,
                                data: $data, trace: '[]', run_prev_hash: $run_prev_hash, v: $v,
                                chain_seq: $chain_seq, prev_hash: $prev_hash, hash: $hash})
RETURN $seq AS seq

// name: audit_add_event
// description: append an admin event (import, reset, release) to the chain, if the head is still ($prev_seq, $prev_hash)
MATCH (h:ChainHead {id: 'head'})
WHERE h.seq = $prev_seq AND h.hash = $prev_hash
SET h.seq = $chain_seq, h.hash = $hash
CREATE (e:Event {event_id: $event_id, kind: $kind, at: $at, actor: $actor, graph: $graph,
                 run_id: $run_id, route_id: $route_id, summary: $summary, data: $data, v: $v,
                 chain_seq: $chain_seq, prev_hash: $prev_hash, hash: $hash})
RETURN e.event_id AS event_id

// name: audit_list_runs
// description: every run on the chain, newest first, at most $limit
MATCH (r:Run)
WHERE r.chain_seq IS NOT NULL
RETURN properties(r) AS run
ORDER BY r.started_at DESC, r.run_id DESC
LIMIT $limit

// name: audit_latest_run_of_alert
// description: the newest run on the chain of the alert $alert_id (its id), if any
MATCH (r:Run {alert_id: $alert_id})
WHERE r.chain_seq IS NOT NULL
RETURN r.run_id AS run_id
ORDER BY r.started_at DESC, r.run_id DESC
LIMIT 1

// name: audit_running_runs
// description: runs still marked running
MATCH (r:Run)
WHERE r.state = 'running' AND r.chain_seq IS NOT NULL
RETURN properties(r) AS run

// name: audit_get_run
// description: one run on the chain, by id
MATCH (r:Run {run_id: $run_id})
WHERE r.chain_seq IS NOT NULL
RETURN properties(r) AS run

// name: audit_get_steps
// description: the steps of one run on the chain, in order (a record without a chain position is never shown)
MATCH (r:Run {run_id: $run_id})-[:HAS_STEP]->(s:Step)
WHERE r.chain_seq IS NOT NULL AND s.chain_seq IS NOT NULL
RETURN properties(s) AS step
ORDER BY s.seq

// name: audit_run_last
// description: a run's own hash and its last step's sequence number and hash (what the next record of the run chains to)
MATCH (r:Run {run_id: $run_id})
WHERE r.chain_seq IS NOT NULL
OPTIONAL MATCH (r)-[:HAS_STEP]->(s:Step)
WHERE s.chain_seq IS NOT NULL
WITH r, s
ORDER BY s.seq DESC
LIMIT 1
RETURN r.hash AS run_hash, s.seq AS seq, s.hash AS step_hash

// name: audit_events_for_run
// description: the events that name run $run_id (a release of a route it blocked), in chain order
MATCH (e:Event {run_id: $run_id})
WHERE e.chain_seq IS NOT NULL
RETURN properties(e) AS event
ORDER BY e.chain_seq

// name: audit_events_of_kind
// description: the admin events of kind $kind, newest first, at most $limit
MATCH (e:Event {kind: $kind})
WHERE e.chain_seq IS NOT NULL
RETURN properties(e) AS event
ORDER BY e.chain_seq DESC
LIMIT $limit

// name: audit_list_events
// description: admin events (imports, resets, releases), newest first, at most $limit
MATCH (e:Event)
WHERE e.chain_seq IS NOT NULL
RETURN properties(e) AS event
ORDER BY e.chain_seq DESC
LIMIT $limit

// name: audit_chain_page
// description: chained records in chain order, one page ($skip, $limit), with their label
MATCH (n)
WHERE n.chain_seq IS NOT NULL
RETURN labels(n)[0] AS label, properties(n) AS props
ORDER BY n.chain_seq
SKIP $skip
LIMIT $limit

// name: audit_unchained
// description: runs, steps, events and run updates without a chain position (written before the chain existed, or outside BlastShield), at most $limit, with their count
MATCH (n)
WHERE (n:Run OR n:Step OR n:Event OR n:RunUpdate) AND n.chain_seq IS NULL
WITH count(n) AS total, collect({label: labels(n)[0], props: properties(n)})[0..$limit] AS some
RETURN total, some
