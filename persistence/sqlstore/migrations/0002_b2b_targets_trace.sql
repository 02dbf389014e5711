-- B2B (dt): the per-account target lists and the event trace records.

CREATE TABLE targets (
    id             {{serial_pk}},
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    handle         TEXT NOT NULL,
    display_name   TEXT NOT NULL,
    social_user_id TEXT,
    is_active      BOOLEAN NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE UNIQUE INDEX targets_account_handle ON targets (account_id, handle);

CREATE TABLE trace (
    id         {{serial_pk}},
    event_id   TEXT NOT NULL,
    event      TEXT NOT NULL,
    handle     TEXT NOT NULL,
    event_time BIGINT NOT NULL,
    data       {{blob}} NOT NULL
);

CREATE INDEX trace_handle_time ON trace (handle, event_time);
