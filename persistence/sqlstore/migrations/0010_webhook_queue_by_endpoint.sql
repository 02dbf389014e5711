-- A webhook endpoint holds a bounded queue in memory and reads the rest of
-- its queued deliveries back from the store as that queue drains
-- (ListEndpointDeliveries): an index of the queued rows by endpoint, so the
-- read skips the endpoint's finished rows that the delivery log keeps.

CREATE INDEX webhook_deliveries_queued_endpoint ON webhook_deliveries (scope, endpoint_id, seq) WHERE state = 'queued';
