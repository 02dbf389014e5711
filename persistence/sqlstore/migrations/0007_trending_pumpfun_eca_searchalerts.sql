-- Trending, PumpFun, ECA and Search Alerts: stored webhooks, trending
-- categories, PumpFun wallets and events, the ECA watchlist and matches, Search
-- Alerts queries.

CREATE TABLE stored_webhooks (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    product    TEXT NOT NULL,
    url        TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, product)
);

CREATE TABLE trending_subscriptions (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    categories TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE pf_targets (
    id          {{serial_pk}},
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    wallet      TEXT NOT NULL,
    label       TEXT NOT NULL,
    alert_types TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE UNIQUE INDEX pf_targets_wallet ON pf_targets (account_id, wallet);

CREATE TABLE pf_events (
    id                  {{serial_pk}},
    account_id          TEXT NOT NULL,
    wallet              TEXT NOT NULL,
    mint                TEXT NOT NULL,
    token_name          TEXT NOT NULL,
    token_symbol        TEXT NOT NULL,
    event_type          TEXT NOT NULL,
    detected_at         BIGINT NOT NULL,
    delivery_latency_ms BIGINT NOT NULL
);

CREATE INDEX pf_events_account ON pf_events (account_id, id);

CREATE TABLE eca_entries (
    id               {{serial_pk}},
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    ticker           TEXT NOT NULL,
    token_name       TEXT NOT NULL,
    contract_address TEXT NOT NULL,
    creator_address  TEXT NOT NULL,
    source           TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('active', 'expired', 'matched', 'removed')),
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    ended_at         BIGINT
);

CREATE INDEX eca_entries_active ON eca_entries (state, expires_at);

CREATE TABLE eca_matches (
    id         {{serial_pk}},
    account_id TEXT NOT NULL,
    entry_id   BIGINT NOT NULL,
    matched_at BIGINT NOT NULL,
    data       {{blob}} NOT NULL
);

CREATE INDEX eca_matches_account ON eca_matches (account_id, matched_at);

CREATE TABLE sa_queries (
    id         {{serial_pk}},
    account_id TEXT NOT NULL REFERENCES accounts (id),
    query_text TEXT NOT NULL,
    every      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX sa_queries_account ON sa_queries (account_id, id);
