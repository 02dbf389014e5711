-- The chat-messenger bot: linked chats, their forum topics, the durable
-- outbox of messages waiting to be sent, and the bot's update offset.

CREATE TABLE chats (
    chat_id    BIGINT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind       TEXT NOT NULL,
    forum      BOOLEAN NOT NULL,
    blocked    BOOLEAN NOT NULL,
    linked_at  BIGINT NOT NULL
);

CREATE INDEX chats_account ON chats (account_id);

CREATE TABLE chat_topics (
    chat_id   BIGINT NOT NULL,
    topic     TEXT NOT NULL,
    thread_id BIGINT NOT NULL,
    PRIMARY KEY (chat_id, topic)
);

CREATE TABLE chat_outbox (
    seq        {{serial_pk}},
    msg_id     TEXT NOT NULL,
    chat_id    BIGINT NOT NULL,
    body       {{blob}} NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX chat_outbox_msg ON chat_outbox (msg_id);

CREATE TABLE chat_bot_state (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
