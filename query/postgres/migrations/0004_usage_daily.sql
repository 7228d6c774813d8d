-- Usage per organisation, application, UTC day and price mode (events,
-- verify, full_control), maintained by the processors in the same
-- transaction as the traces (only for a chunk written for the first time,
-- so a replay never counts twice). Billing reads this, never the traces.
CREATE TABLE usage_daily (
	org_id            TEXT NOT NULL,
	app_id            TEXT NOT NULL,
	day               TEXT NOT NULL,
	price_mode        TEXT NOT NULL,
	requests          BIGINT NOT NULL,
	prompt_tokens     BIGINT NOT NULL,
	completion_tokens BIGINT NOT NULL,
	PRIMARY KEY (org_id, app_id, day, price_mode)
);
