-- The watch products, Community Watch (cw), Convergence Tracker (ct) and
-- Engagement Tracker (et): targets, settings and webhooks, delivered events,
-- detector state.

CREATE TABLE watch_targets (
    id         {{serial_pk}},
    product    TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    item       TEXT NOT NULL,
    options    {{blob}} NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX watch_targets_item ON watch_targets (product, account_id, item);

CREATE TABLE watch_configs (
    id             {{serial_pk}},
    product        TEXT NOT NULL,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    settings       {{blob}} NOT NULL,
    webhook_url    TEXT NOT NULL,
    webhook_secret TEXT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE UNIQUE INDEX watch_configs_account ON watch_configs (product, account_id);

CREATE TABLE watch_events (
    id         {{serial_pk}},
    product    TEXT NOT NULL,
    account_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    data       {{blob}} NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX watch_events_account ON watch_events (product, account_id, id);

CREATE INDEX watch_events_created ON watch_events (product, created_at);

CREATE TABLE watch_states (
    product    TEXT NOT NULL,
    subject    TEXT NOT NULL,
    data       {{blob}} NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (product, subject)
);
