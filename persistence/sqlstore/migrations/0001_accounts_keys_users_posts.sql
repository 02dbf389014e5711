-- Accounts, subscriptions and API keys; the user directory, posts, snapshots
-- and the observation log. Every later file builds on these.

CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL
);

CREATE TABLE subscriptions (
    account_id            TEXT NOT NULL REFERENCES accounts (id),
    product               TEXT NOT NULL,
    plan                  TEXT NOT NULL,
    modules               TEXT NOT NULL,
    max_handles           BIGINT NOT NULL,
    max_tweets            BIGINT NOT NULL,
    max_wallets           BIGINT NOT NULL,
    ca_search_daily_limit BIGINT,
    late_delivery         BOOLEAN NOT NULL,
    expires_at            BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL,
    PRIMARY KEY (account_id, product)
);

CREATE TABLE api_keys (
    hash       {{blob}} PRIMARY KEY,
    product    TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    state      TEXT NOT NULL CHECK (state IN ('active', 'deactivated', 'revoked')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX api_keys_account_product ON api_keys (account_id, product);

-- At most one active key per (account, product).
CREATE UNIQUE INDEX api_keys_one_active ON api_keys (account_id, product) WHERE state = 'active';

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    handle     TEXT,
    suspended  BOOLEAN NOT NULL,
    categories TEXT NOT NULL,
    snapshot   {{blob}} NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX users_handle ON users (handle);

CREATE TABLE posts (
    id          TEXT PRIMARY KEY,
    handle      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    detected_at BIGINT NOT NULL,
    data        {{blob}} NOT NULL
);

CREATE INDEX posts_handle_created ON posts (handle, created_at DESC);

CREATE TABLE snapshots (
    handle      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    data        {{blob}} NOT NULL,
    observed_at BIGINT NOT NULL,
    PRIMARY KEY (handle, kind)
);

CREATE TABLE observations (
    id          {{serial_pk}},
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    detected_at BIGINT NOT NULL,
    data        {{blob}} NOT NULL
);

CREATE INDEX observations_kind_detected ON observations (kind, detected_at);
