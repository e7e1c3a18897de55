-- A request's supporting document as payops read it once: the Slack file id, its name (scrubbed),
-- size, SHA-256 and Slack's link. Sealed with the request; never sent to the provider.
alter table payment_requests add column document jsonb;
