-- Console filters at scale (docs/benchmarks.md, "Console queries"). The
-- listing is "newest first, 50 rows": with only the (org_id, received_at)
-- index, a filter walks that index until it has found 50 matches, which is
-- instant for a common value and a scan of the whole organisation for a
-- value that matches nothing (400 ms at 1,000,000 traces). One b-tree per
-- filter column, in listing order, answers any value from the index. The
-- keys leave out request_id (the tie-break of equal received_at is a tiny
-- incremental sort): each index costs the write path less that way
-- (PostgreSQL WriteTraces 34-40k rows/s before this migration, 18k with
-- request_id in every key, 22k without; docs/benchmarks.md).
--
-- IF NOT EXISTS: on a large existing table an operator can build these
-- first with CREATE INDEX CONCURRENTLY (same names), without blocking the
-- processors' writes, and this migration then only records itself.
CREATE INDEX IF NOT EXISTS traces_org_app_received ON traces (org_id, app_id, received_at DESC);
CREATE INDEX IF NOT EXISTS traces_org_status_received ON traces (org_id, status, received_at DESC);
CREATE INDEX IF NOT EXISTS traces_org_decision_received ON traces (org_id, final_decision, received_at DESC);
CREATE INDEX IF NOT EXISTS traces_org_model_received ON traces (org_id, model, received_at DESC);
CREATE INDEX IF NOT EXISTS traces_org_use_case_received ON traces (org_id, use_case, received_at DESC);
CREATE INDEX IF NOT EXISTS traces_org_mode_received ON traces (org_id, mode, received_at DESC);
-- metadata.<key>=<value> filters: containment (@>) on a GIN index of the
-- key/value paths. The planner uses it for rare values and keeps the
-- ordered listing index for common ones (it estimates @> from the
-- column's statistics).
CREATE INDEX IF NOT EXISTS traces_metadata ON traces USING gin (metadata jsonb_path_ops);
