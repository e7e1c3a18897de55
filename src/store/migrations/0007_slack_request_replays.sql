-- Signatures of the signed Slack requests payops took, shared by every replica, so that the same
-- bytes sent again within Slack's five minutes are acknowledged and do nothing. The signature is
-- an HMAC over the timestamp and the body, so it names one request; `request_ts` (Slack's
-- X-Slack-Request-Timestamp, Unix seconds) says when a row can go.
-- Unlogged: no commit waits for a disk flush on every Slack request. A database crash or a
-- failover empties it, forgetting at most the last ten minutes of signatures.
create unlogged table slack_request_replays (
  signature  text   primary key,
  request_ts bigint not null
);
create index slack_request_replays_ts on slack_request_replays (request_ts);
