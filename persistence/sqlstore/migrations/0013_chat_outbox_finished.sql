-- The chat outbox remembers the messages it is done with (sent, refused for
-- good, or replaced by a digest or a migration) for a bounded time instead
-- of deleting them: the ingest log's replay of a post queues its chat
-- alerts again, and the unique msg_id then keeps what was sent from being
-- sent twice while what was not yet queued is queued (issue 10, item 12).
-- finished_at is 0 while a message waits; its body is emptied once done.

ALTER TABLE chat_outbox ADD COLUMN finished_at BIGINT NOT NULL DEFAULT 0;

CREATE INDEX chat_outbox_waiting ON chat_outbox (seq) WHERE finished_at = 0;

CREATE INDEX chat_outbox_finished ON chat_outbox (finished_at) WHERE finished_at > 0;
