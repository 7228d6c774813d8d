-- Query store schema, PostgreSQL dialect. Timestamps are timestamptz
-- (microseconds, UTC); JSON columns are jsonb. request_id uses the "C"
-- collation so keyset pagination orders ids bytewise, as SQLite does.
CREATE TABLE orgs (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	credit_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
	created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	org_id        TEXT NOT NULL REFERENCES orgs (id),
	email         TEXT NOT NULL,
	password_hash BYTEA NOT NULL,
	created_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_org ON users (org_id);

CREATE TABLE console_tokens (
	hash       BYTEA PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id),
	org_id     TEXT NOT NULL REFERENCES orgs (id),
	expires_at TIMESTAMPTZ NOT NULL,
	created_at TIMESTAMPTZ NOT NULL
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
	key_hash        BYTEA NOT NULL UNIQUE,
	key_prefix      TEXT NOT NULL DEFAULT '',
	llm_key_cipher  BYTEA,
	created_at      TIMESTAMPTZ NOT NULL,
	deleted_at      TIMESTAMPTZ
);
CREATE INDEX apps_org ON apps (org_id, created_at);

-- No foreign key to orgs: traces are a projection of the log and may be
-- rebuilt before or without the tenant tables.
CREATE TABLE traces (
	org_id            TEXT NOT NULL,
	request_id        TEXT COLLATE "C" NOT NULL,
	app_id            TEXT NOT NULL DEFAULT '',
	parent_request_id TEXT NOT NULL DEFAULT '',
	mode              TEXT NOT NULL,
	started_at        TIMESTAMPTZ NOT NULL,
	finished_at       TIMESTAMPTZ,
	provider          TEXT NOT NULL DEFAULT '',
	model             TEXT NOT NULL DEFAULT '',
	use_case          TEXT NOT NULL DEFAULT '',
	team_id           TEXT NOT NULL DEFAULT '',
	integration_id    TEXT NOT NULL DEFAULT '',
	end_user_id       TEXT NOT NULL DEFAULT '',
	user_id           TEXT NOT NULL DEFAULT '',
	session_id        TEXT NOT NULL DEFAULT '',
	prompt_tokens     BIGINT NOT NULL DEFAULT 0,
	completion_tokens BIGINT NOT NULL DEFAULT 0,
	total_tokens      BIGINT NOT NULL DEFAULT 0,
	cost_usd          DOUBLE PRECISION,
	latency_ms        BIGINT,
	status            TEXT NOT NULL,
	final_decision    TEXT NOT NULL DEFAULT '',
	risk_score        DOUBLE PRECISION,
	policy_hits       JSONB,
	prompt            TEXT NOT NULL DEFAULT '',
	answer            TEXT NOT NULL DEFAULT '',
	metadata          JSONB,
	received_at       TIMESTAMPTZ NOT NULL,
	log_partition     INTEGER NOT NULL,
	log_offset        BIGINT NOT NULL,
	PRIMARY KEY (org_id, request_id)
);
CREATE INDEX traces_org_received ON traces (org_id, received_at DESC, request_id DESC);
CREATE INDEX traces_org_session ON traces (org_id, session_id, started_at);
CREATE INDEX traces_org_app ON traces (org_id, app_id, received_at);

CREATE TABLE chunks (
	topic         TEXT NOT NULL,
	log_partition INTEGER NOT NULL,
	first_offset  BIGINT NOT NULL,
	last_offset   BIGINT NOT NULL,
	PRIMARY KEY (topic, log_partition, first_offset)
);
