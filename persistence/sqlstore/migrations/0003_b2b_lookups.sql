-- B2B lookups (/v1/dt and /social): profile history, follow edges and lists,
-- social changes, community memberships and catalog, latest engagement, the
-- per-account blacklist and the dt webhook.

CREATE TABLE profile_history (
    id           {{serial_pk}},
    user_id      TEXT NOT NULL,
    followers    BIGINT NOT NULL,
    following    BIGINT NOT NULL,
    tweet_count  BIGINT NOT NULL,
    likes_count  BIGINT NOT NULL,
    listed_count BIGINT NOT NULL,
    scraped_at   BIGINT NOT NULL
);

CREATE INDEX profile_history_user ON profile_history (user_id, scraped_at);

CREATE INDEX profile_history_user_id ON profile_history (user_id, id);

CREATE TABLE follow_edges (
    handle             TEXT NOT NULL,
    relation           TEXT NOT NULL,
    target_id          TEXT NOT NULL,
    target_screen_name TEXT NOT NULL,
    is_current         BOOLEAN NOT NULL,
    first_seen_at      BIGINT NOT NULL,
    last_seen_at       BIGINT NOT NULL,
    PRIMARY KEY (handle, relation, target_id)
);

CREATE INDEX follow_edges_page ON follow_edges (handle, relation, is_current, first_seen_at);

-- One row per (handle, relation) that has had a complete list.
CREATE TABLE follow_lists (
    handle   TEXT NOT NULL,
    relation TEXT NOT NULL,
    first_at BIGINT NOT NULL,
    last_at  BIGINT NOT NULL,
    PRIMARY KEY (handle, relation)
);

CREATE TABLE social_changes (
    id                 {{serial_pk}},
    handle             TEXT NOT NULL,
    relation           TEXT NOT NULL,
    target_id          TEXT NOT NULL,
    target_screen_name TEXT NOT NULL,
    change             TEXT NOT NULL,
    changed_at         BIGINT NOT NULL
);

CREATE INDEX social_changes_handle ON social_changes (handle, change, changed_at);

CREATE TABLE handle_communities (
    handle              TEXT NOT NULL,
    community_id        TEXT NOT NULL,
    community_name      TEXT NOT NULL,
    member_count        BIGINT NOT NULL,
    creator_screen_name TEXT NOT NULL,
    is_current          BOOLEAN NOT NULL,
    first_seen_at       BIGINT NOT NULL,
    last_seen_at        BIGINT NOT NULL,
    PRIMARY KEY (handle, community_id)
);

CREATE TABLE community_catalog (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    name_lower   TEXT NOT NULL,
    description  TEXT NOT NULL,
    member_count BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX community_catalog_rank ON community_catalog (member_count, id);

CREATE TABLE lookup_engagement (
    tweet_id    TEXT PRIMARY KEY,
    likes       BIGINT,
    retweets    BIGINT,
    replies     BIGINT,
    quotes      BIGINT,
    bookmarks   BIGINT,
    observed_at BIGINT NOT NULL
);

CREATE TABLE dt_blacklist (
    id         {{serial_pk}},
    account_id TEXT NOT NULL REFERENCES accounts (id),
    handle     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX dt_blacklist_account_handle ON dt_blacklist (account_id, handle);

CREATE TABLE dt_webhooks (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    url        TEXT NOT NULL,
    secret     TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
