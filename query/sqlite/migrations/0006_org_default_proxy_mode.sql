-- The organisation's default X-Service-Mode of the proxy (spec 4.1: "tenant
-- default"); '' means the operator's default (GATEWAY_PROXY_DEFAULT_MODE).
ALTER TABLE orgs ADD COLUMN default_proxy_mode TEXT NOT NULL DEFAULT '';
