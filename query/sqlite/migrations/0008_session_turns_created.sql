-- Session-turn retention (GATEWAY_SESSION_RETENTION): the API deletes the
-- oldest turns created before a cutoff in bounded batches; this index
-- serves that scan.
CREATE INDEX session_turns_created ON session_turns (created_at);
