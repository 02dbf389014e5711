-- CA Search: post terms and daily usage.

-- Contract and cashtag terms of posts, for searches older than the in-memory
-- window (words are matched by reading the posts).
CREATE TABLE search_terms (
    term       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    post_id    TEXT NOT NULL,
    PRIMARY KEY (term, created_at, post_id)
);

-- Warming the index and scanning old windows read posts by time.
CREATE INDEX posts_created ON posts (created_at, id);

CREATE TABLE search_usage (
    account_id TEXT NOT NULL,
    day        BIGINT NOT NULL,
    used       BIGINT NOT NULL,
    PRIMARY KEY (account_id, day)
);
