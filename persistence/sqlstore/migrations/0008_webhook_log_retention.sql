-- The webhook delivery log and the indexes of --retention.
--
-- A delivery row now stays once its delivery is over: state says how it
-- ended (queued until then; delivered, failed, or dropped when its endpoint
-- went away first), with one webhook_attempts row per attempt, until
-- retention prunes both. Existing rows are all still queued.

ALTER TABLE webhook_deliveries ADD COLUMN state TEXT NOT NULL DEFAULT 'queued';

ALTER TABLE webhook_deliveries ADD COLUMN event TEXT NOT NULL DEFAULT '';

ALTER TABLE webhook_deliveries ADD COLUMN finished_at BIGINT;

-- Start reloads the queued ones; the log pages an endpoint's newest first.
DROP INDEX webhook_deliveries_endpoint;

CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (scope, seq) WHERE state = 'queued';

CREATE INDEX webhook_deliveries_log ON webhook_deliveries (scope, endpoint_id, seq);

CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE state <> 'queued';

CREATE TABLE webhook_attempts (
    id          {{serial_pk}},
    scope       TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    at          BIGINT NOT NULL,
    status_code BIGINT NOT NULL,
    latency_ms  BIGINT NOT NULL,
    error       TEXT NOT NULL,
    result      TEXT NOT NULL
);

CREATE INDEX webhook_attempts_delivery ON webhook_attempts (scope, delivery_id, id);

CREATE INDEX webhook_attempts_at ON webhook_attempts (at);

-- Retention deletes by age, oldest first, in small batches: each table it
-- prunes needs its time column indexed on its own (posts already have
-- posts_created).
CREATE INDEX observations_detected ON observations (detected_at);

CREATE INDEX trace_event_time ON trace (event_time);

CREATE INDEX profile_history_scraped ON profile_history (scraped_at);

CREATE INDEX social_changes_changed ON social_changes (changed_at);
