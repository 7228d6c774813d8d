-- Fewer index entries per trace: every index costs the write path a b-tree
-- insert per row (DESIGN: >= 50,000 traces/s into store and lake).
-- The listing index also carries app_id, so "newest first of one app"
-- filters on index entries without reading table rows; the separate app
-- index goes.
DROP INDEX traces_org_app;
DROP INDEX traces_org_received;
CREATE INDEX traces_org_received ON traces (org_id, received_at DESC, request_id DESC, app_id);
-- Most traces carry no session: index only those that do. Queries on a
-- session repeat "session_id <> ''" so the planner may use it.
DROP INDEX traces_org_session;
CREATE INDEX traces_org_session ON traces (org_id, session_id, started_at) WHERE session_id <> '';
