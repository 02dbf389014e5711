-- A webhook endpoint holds a bounded queue in memory and reads the rest of
-- its queued deliveries back from the store as that queue drains
-- (ListEndpointDeliveries). The index of queued rows now leads with the
-- endpoint, so that read skips the finished rows the delivery log keeps;
-- it replaces the (scope, seq) one rather than joining it, since every
-- delivery enters and leaves each index of queued rows once (ListDeliveries,
-- at start only, sorts the scope's queued rows itself).

DROP INDEX webhook_deliveries_queued;

CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (scope, endpoint_id, seq) WHERE state = 'queued';
