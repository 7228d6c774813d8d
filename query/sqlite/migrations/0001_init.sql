-- Query store schema, SQLite dialect. Timestamps are INTEGER microseconds
-- since the Unix epoch (UTC); JSON columns are TEXT.
CREATE TABLE orgs (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	credit_usd REAL NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL
);

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	org_id        TEXT NOT NULL REFERENCES orgs (id),
	email         TEXT NOT NULL,
	password_hash BLOB NOT NULL,
	created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_org ON users (org_id);

CREATE TABLE console_tokens (
	hash       BLOB PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id),
	org_id     TEXT NOT NULL REFERENCES orgs (id),
	expires_at INTEGER NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX console_tokens_user ON console_tokens (user_id);

CREATE TABLE apps (
	id              TEXT PRIMARY KEY,
	org_id          TEXT NOT NULL REFERENCES orgs (id),
	name            TEXT NOT NULL,
	mode            TEXT NOT NULL,
	provider_option TEXT NOT NULL DEFAULT '',
	provider        TEXT NOT NULL DEFAULT '',
	model           TEXT NOT NULL DEFAULT '',
	key_hash        BLOB NOT NULL UNIQUE,
	key_prefix      TEXT NOT NULL DEFAULT '',
	llm_key_cipher  BLOB,
	created_at      INTEGER NOT NULL,
	deleted_at      INTEGER
);
CREATE INDEX apps_org ON apps (org_id, created_at);

-- No foreign key to orgs: traces are a projection of the log and may be
-- rebuilt before or without the tenant tables.
CREATE TABLE traces (
	org_id            TEXT NOT NULL,
	request_id        TEXT NOT NULL,
	app_id            TEXT NOT NULL DEFAULT '',
	parent_request_id TEXT NOT NULL DEFAULT '',
	mode              TEXT NOT NULL,
	started_at        INTEGER NOT NULL,
	finished_at       INTEGER,
	provider          TEXT NOT NULL DEFAULT '',
	model             TEXT NOT NULL DEFAULT '',
	use_case          TEXT NOT NULL DEFAULT '',
	team_id           TEXT NOT NULL DEFAULT '',
	integration_id    TEXT NOT NULL DEFAULT '',
	end_user_id       TEXT NOT NULL DEFAULT '',
	user_id           TEXT NOT NULL DEFAULT '',
	session_id        TEXT NOT NULL DEFAULT '',
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	total_tokens      INTEGER NOT NULL DEFAULT 0,
	cost_usd          REAL,
	latency_ms        INTEGER,
	status            TEXT NOT NULL,
	final_decision    TEXT NOT NULL DEFAULT '',
	risk_score        REAL,
	policy_hits       TEXT,
	prompt            TEXT NOT NULL DEFAULT '',
	answer            TEXT NOT NULL DEFAULT '',
	metadata          TEXT,
	received_at       INTEGER NOT NULL,
	log_partition     INTEGER NOT NULL,
	log_offset        INTEGER NOT NULL,
	PRIMARY KEY (org_id, request_id)
);
CREATE INDEX traces_org_received ON traces (org_id, received_at DESC, request_id DESC);
CREATE INDEX traces_org_session ON traces (org_id, session_id, started_at);
CREATE INDEX traces_org_app ON traces (org_id, app_id, received_at);

CREATE TABLE chunks (
	topic         TEXT NOT NULL,
	log_partition INTEGER NOT NULL,
	first_offset  INTEGER NOT NULL,
	last_offset   INTEGER NOT NULL,
	PRIMARY KEY (topic, log_partition, first_offset)
) WITHOUT ROWID;
