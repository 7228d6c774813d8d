-- Governance policy per application (issue 3): the JSON document edited
-- through /api/console/apps/{id}/policy; NULL means the default policy.
-- policy_version increments on every change so API replicas can cache the
-- compiled policy and notice edits.
ALTER TABLE apps ADD COLUMN policy TEXT;
ALTER TABLE apps ADD COLUMN policy_version BIGINT NOT NULL DEFAULT 0;
