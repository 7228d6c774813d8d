-- KPI rollup per organisation, UTC hour, mode, final_decision and status,
-- maintained by the processors in the same transaction as the traces, only
-- for a chunk written for the first time (as usage_daily: a replay never
-- counts twice). The console's KPIs read the whole hours of a long window
-- from here and only its partial-hour edges from the traces.
--
-- hour is the start of the UTC hour, stored like traces.received_at
-- (TIMESTAMPTZ). cost_usd sums the known costs (unknown counts 0).
-- latency_count/latency_sum cover the traces with a latency, and lat_bNN
-- count them in a fixed log-scale histogram: bucket NN holds the latencies
-- in (bound[NN-1], bound[NN]] ms, bounds 1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 30,
-- ... 426573, 600000 (~1.41x apart, 1 ms .. 10 min; lat_b00 also holds 0,
-- lat_b39 everything above 426573). They are kpiLatencyBounds in
-- query/internal/sqlcore/kpi.go; a test checks the CASE below against them.
-- One BIGINT column per bucket, not an array or a text: the write path adds
-- counters with a plain ON CONFLICT ... DO UPDATE SET c = kpi_hourly.c +
-- excluded.c on both engines (SQLite has no arrays, and a text would need a
-- read-modify-write), and the read path is a plain SUM per column.
CREATE TABLE kpi_hourly (
	org_id            TEXT NOT NULL,
	hour              TIMESTAMPTZ NOT NULL,
	mode              TEXT NOT NULL,
	final_decision    TEXT NOT NULL,
	status            TEXT NOT NULL,
	requests          BIGINT NOT NULL,
	prompt_tokens     BIGINT NOT NULL,
	completion_tokens BIGINT NOT NULL,
	cost_usd          DOUBLE PRECISION NOT NULL,
	latency_count     BIGINT NOT NULL,
	latency_sum       BIGINT NOT NULL,
	lat_b00           BIGINT NOT NULL,
	lat_b01           BIGINT NOT NULL,
	lat_b02           BIGINT NOT NULL,
	lat_b03           BIGINT NOT NULL,
	lat_b04           BIGINT NOT NULL,
	lat_b05           BIGINT NOT NULL,
	lat_b06           BIGINT NOT NULL,
	lat_b07           BIGINT NOT NULL,
	lat_b08           BIGINT NOT NULL,
	lat_b09           BIGINT NOT NULL,
	lat_b10           BIGINT NOT NULL,
	lat_b11           BIGINT NOT NULL,
	lat_b12           BIGINT NOT NULL,
	lat_b13           BIGINT NOT NULL,
	lat_b14           BIGINT NOT NULL,
	lat_b15           BIGINT NOT NULL,
	lat_b16           BIGINT NOT NULL,
	lat_b17           BIGINT NOT NULL,
	lat_b18           BIGINT NOT NULL,
	lat_b19           BIGINT NOT NULL,
	lat_b20           BIGINT NOT NULL,
	lat_b21           BIGINT NOT NULL,
	lat_b22           BIGINT NOT NULL,
	lat_b23           BIGINT NOT NULL,
	lat_b24           BIGINT NOT NULL,
	lat_b25           BIGINT NOT NULL,
	lat_b26           BIGINT NOT NULL,
	lat_b27           BIGINT NOT NULL,
	lat_b28           BIGINT NOT NULL,
	lat_b29           BIGINT NOT NULL,
	lat_b30           BIGINT NOT NULL,
	lat_b31           BIGINT NOT NULL,
	lat_b32           BIGINT NOT NULL,
	lat_b33           BIGINT NOT NULL,
	lat_b34           BIGINT NOT NULL,
	lat_b35           BIGINT NOT NULL,
	lat_b36           BIGINT NOT NULL,
	lat_b37           BIGINT NOT NULL,
	lat_b38           BIGINT NOT NULL,
	lat_b39           BIGINT NOT NULL,
	PRIMARY KEY (org_id, hour, mode, final_decision, status)
);

-- Backfill from the traces already stored, so an existing deployment
-- reports correct KPIs at once. O(traces), once: on a large database this
-- migration takes as long as one full scan and aggregation of the traces
-- (about as long as a 30-day KPI query used to take per 1,000,000 traces),
-- holding the migration lock. Traces written meanwhile by processes still
-- running the previous version are not counted here (nor by them): upgrade
-- the processors together.
INSERT INTO kpi_hourly (org_id, hour, mode, final_decision, status, requests, prompt_tokens,
	completion_tokens, cost_usd, latency_count, latency_sum,
	lat_b00, lat_b01, lat_b02, lat_b03, lat_b04, lat_b05, lat_b06, lat_b07,
	lat_b08, lat_b09, lat_b10, lat_b11, lat_b12, lat_b13, lat_b14, lat_b15,
	lat_b16, lat_b17, lat_b18, lat_b19, lat_b20, lat_b21, lat_b22, lat_b23,
	lat_b24, lat_b25, lat_b26, lat_b27, lat_b28, lat_b29, lat_b30, lat_b31,
	lat_b32, lat_b33, lat_b34, lat_b35, lat_b36, lat_b37, lat_b38, lat_b39)
SELECT org_id, hour, mode, final_decision, status, COUNT(*), SUM(prompt_tokens),
	SUM(completion_tokens), SUM(COALESCE(cost_usd, 0)), COUNT(latency_ms), COALESCE(SUM(latency_ms), 0),
	SUM(CASE WHEN lb = 0 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 1 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 2 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 3 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 4 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 5 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 6 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 7 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 8 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 9 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 10 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 11 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 12 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 13 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 14 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 15 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 16 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 17 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 18 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 19 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 20 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 21 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 22 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 23 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 24 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 25 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 26 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 27 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 28 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 29 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 30 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 31 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 32 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 33 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 34 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 35 THEN 1 ELSE 0 END),
	SUM(CASE WHEN lb = 36 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 37 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 38 THEN 1 ELSE 0 END), SUM(CASE WHEN lb = 39 THEN 1 ELSE 0 END)
FROM (
	SELECT org_id, to_timestamp(floor(extract(epoch FROM received_at) / 3600) * 3600) AS hour, mode, final_decision, status,
		prompt_tokens, completion_tokens, cost_usd, latency_ms,
		CASE WHEN latency_ms IS NULL THEN -1 WHEN latency_ms <= 1 THEN 0 WHEN latency_ms <= 2 THEN 1 WHEN latency_ms <= 3 THEN 2 WHEN latency_ms <= 4 THEN 3
		WHEN latency_ms <= 5 THEN 4 WHEN latency_ms <= 6 THEN 5 WHEN latency_ms <= 8 THEN 6 WHEN latency_ms <= 11 THEN 7 WHEN latency_ms <= 15 THEN 8
		WHEN latency_ms <= 22 THEN 9 WHEN latency_ms <= 30 THEN 10 WHEN latency_ms <= 43 THEN 11 WHEN latency_ms <= 60 THEN 12 WHEN latency_ms <= 84 THEN 13
		WHEN latency_ms <= 119 THEN 14 WHEN latency_ms <= 167 THEN 15 WHEN latency_ms <= 235 THEN 16 WHEN latency_ms <= 330 THEN 17 WHEN latency_ms <= 464 THEN 18
		WHEN latency_ms <= 653 THEN 19 WHEN latency_ms <= 919 THEN 20 WHEN latency_ms <= 1292 THEN 21 WHEN latency_ms <= 1817 THEN 22 WHEN latency_ms <= 2556 THEN 23
		WHEN latency_ms <= 3596 THEN 24 WHEN latency_ms <= 5058 THEN 25 WHEN latency_ms <= 7114 THEN 26 WHEN latency_ms <= 10006 THEN 27 WHEN latency_ms <= 14074 THEN 28
		WHEN latency_ms <= 19796 THEN 29 WHEN latency_ms <= 27844 THEN 30 WHEN latency_ms <= 39164 THEN 31 WHEN latency_ms <= 55087 THEN 32 WHEN latency_ms <= 77483 THEN 33
		WHEN latency_ms <= 108984 THEN 34 WHEN latency_ms <= 153292 THEN 35 WHEN latency_ms <= 215615 THEN 36 WHEN latency_ms <= 303274 THEN 37 WHEN latency_ms <= 426573 THEN 38
		ELSE 39 END AS lb
	FROM traces
) AS t
GROUP BY org_id, hour, mode, final_decision, status;
