// Audit records of containment runs, in their own graph (never the scenario graph).
// Written only by blastshield_core/audit.py through Store.execute_audit_write.

// name: audit_run_index
// description: index on run ids
CREATE INDEX FOR (r:Run) ON (r.run_id)

// name: audit_create_run
// description: record a new run
CREATE (r:Run {run_id: $run_id, alert_id: $alert_id, decider: $decider, max_actions: $max_actions,
               state: $state, reason: $reason, started_at: $started_at, finished_at: '',
               remaining_paths: $remaining_paths, actions: $actions})
RETURN r.run_id AS run_id

// name: audit_update_run
// description: update a run's state, reason, actions and remaining path count
MATCH (r:Run {run_id: $run_id})
SET r.state = $state, r.reason = $reason, r.finished_at = $finished_at,
    r.remaining_paths = $remaining_paths, r.actions = $actions
RETURN r.run_id AS run_id

// name: audit_add_step
// description: append one step (with its slice of the tool trace) to a run
MATCH (r:Run {run_id: $run_id})
CREATE (r)-[:HAS_STEP]->(:Step {run_id: $run_id, seq: $seq, kind: $kind, at: $at, summary: $summary,
                                data: $data, trace: $trace})
RETURN $seq AS seq

// name: audit_list_runs
// description: every run, newest first, at most $limit
MATCH (r:Run)
RETURN properties(r) AS run
ORDER BY r.started_at DESC, r.run_id DESC
LIMIT $limit

// name: audit_get_run
// description: one run by id
MATCH (r:Run {run_id: $run_id})
RETURN properties(r) AS run

// name: audit_get_steps
// description: the steps of one run, in order
MATCH (:Run {run_id: $run_id})-[:HAS_STEP]->(s:Step)
RETURN properties(s) AS step
ORDER BY s.seq
