-- Tweet Alerts (xg): tracked accounts, per-handle and account settings,
-- webhooks, the durable webhook delivery queue, server secrets and Telegram
-- links.

CREATE TABLE xg_tracked (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    handle     TEXT NOT NULL,
    added_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, handle)
);

CREATE TABLE xg_handle_prefs (
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    handle          TEXT NOT NULL,
    keywords        TEXT NOT NULL,
    muted           BOOLEAN NOT NULL,
    exclude_replies BOOLEAN NOT NULL,
    exclude_reposts BOOLEAN NOT NULL,
    exclude_quotes  BOOLEAN NOT NULL,
    PRIMARY KEY (account_id, handle)
);

CREATE TABLE xg_settings (
    account_id           TEXT PRIMARY KEY REFERENCES accounts (id),
    exclude_replies      BOOLEAN NOT NULL,
    contracts_only       BOOLEAN NOT NULL,
    notifications_paused BOOLEAN NOT NULL,
    exclude_reposts      BOOLEAN NOT NULL,
    auto_topics          BOOLEAN NOT NULL,
    contract_topic       BOOLEAN NOT NULL
);

CREATE TABLE xg_webhooks (
    id                   {{serial_pk}},
    account_id           TEXT NOT NULL REFERENCES accounts (id),
    url                  TEXT NOT NULL,
    events               TEXT NOT NULL,
    filter_handles       TEXT NOT NULL,
    filter_keywords      TEXT NOT NULL,
    secret               TEXT NOT NULL,
    is_active            BOOLEAN NOT NULL,
    consecutive_failures BIGINT NOT NULL,
    created_at           BIGINT NOT NULL,
    deactivated_at       BIGINT,
    disabled             BOOLEAN NOT NULL
);

CREATE INDEX xg_webhooks_account ON xg_webhooks (account_id, is_active);

-- The durable webhook delivery queue, shared by every product's webhook
-- engine, told apart by scope.
CREATE TABLE webhook_deliveries (
    seq         {{serial_pk}},
    scope       TEXT NOT NULL,
    endpoint_id BIGINT NOT NULL,
    delivery_id TEXT NOT NULL,
    body        {{blob}} NOT NULL,
    attempts    BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE UNIQUE INDEX webhook_deliveries_id ON webhook_deliveries (scope, delivery_id);

CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (scope, endpoint_id);

CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value {{blob}} NOT NULL
);

CREATE TABLE xg_telegram_links (
    telegram_id BIGINT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    product     TEXT NOT NULL,
    linked_at   BIGINT NOT NULL
);
