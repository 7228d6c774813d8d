-- Full Control session history (POST /v1/chat with session_id): one row per
-- answered turn, written by the API before it answers, so the next turn
-- sees it at once (the traces table lags the log). messages is the JSON
-- array of the turn's messages as the LLM got them (after pre-flight
-- redaction) and the delivered answer. Keyed by (org_id, request_id): a
-- retried write of the same turn is a no-op.
CREATE TABLE session_turns (
	org_id     TEXT NOT NULL,
	app_id     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	request_id TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	messages   TEXT NOT NULL,
	PRIMARY KEY (org_id, request_id)
);
CREATE INDEX session_turns_session ON session_turns (org_id, app_id, session_id, created_at, request_id);
