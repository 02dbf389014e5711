-- A product sends one body to many webhooks: a post tracked by 100 of them
-- was 100 delivery rows of the same ~1 KiB body, written once and rewritten
-- by the update that finishes each delivery. A body shared by several
-- deliveries of one write is now stored once in webhook_bodies and the
-- deliveries point at it (body_id); a body sent to one webhook stays inline
-- (body_id NULL), as every row stored before this step does.
--
-- A body stays as long as a delivery points at it, since a finished delivery
-- can be redelivered: retention deletes the deliveries by age, then the
-- bodies old enough that nothing points at them any more.

CREATE TABLE webhook_bodies (
    id         {{serial_pk}},
    created_at BIGINT NOT NULL,
    body       {{blob}} NOT NULL
);

CREATE INDEX webhook_bodies_created ON webhook_bodies (created_at);

ALTER TABLE webhook_deliveries ADD COLUMN body_id BIGINT;

-- Retention asks whether any delivery still points at a body.
CREATE INDEX webhook_deliveries_body ON webhook_deliveries (body_id) WHERE body_id IS NOT NULL;

-- The attempt that delivered a delivery (2xx) is kept in the delivery's own
-- row: its answer's status and latency (its time is finished_at). It is the
-- last of the delivery's log, and most deliveries have no other, so a
-- delivered one costs one row instead of two. A redelivery moves it to
-- webhook_attempts, where the next attempts follow it.
ALTER TABLE webhook_deliveries ADD COLUMN ok_status BIGINT;

ALTER TABLE webhook_deliveries ADD COLUMN ok_latency_ms BIGINT;
