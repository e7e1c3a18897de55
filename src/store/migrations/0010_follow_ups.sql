-- Submitted money-moving writes, followed by reading the provider's list (there are no webhooks)
-- until their record shows a final status or the follow-up time runs out. Each change of status
-- is recorded by a conditional update that also writes its Slack messages, so of several
-- replicas only the one whose update wins tells it.
create table follow_ups (
  request_id      bigint      primary key references payment_requests (id),
  -- The catalogue's list where the record shows (`listPayouts`, `listTransfers`): one read of it
  -- serves every request followed there.
  list_operation  text        not null,
  -- The provider's id of the record, once known (from the write's answer, or a match in a list).
  provider_id     text,
  last_status     text,
  -- Every status seen, oldest first: [{"status": …, "seenAt": …, "final": true?}].
  history         jsonb       not null default '[]'::jsonb,
  started_at      timestamptz not null default now(),
  -- Null until the first look: due one follow interval (PAYOPS_FOLLOW_INTERVAL_MS) after the start.
  next_check_at   timestamptz,
  last_checked_at timestamptz,
  -- Last time a read of the list showed the record; a record once listed and then missing is
  -- told once (`disappeared_at`), and still looked for.
  last_listed_at  timestamptz,
  disappeared_at  timestamptz,
  unchanged_since timestamptz not null default now(),
  -- Why the last look learnt nothing (a failed read, several records that could be it).
  last_error      text,
  stopped_reason  text check (stopped_reason in ('final_status', 'time_limit')),
  stopped_at      timestamptz,
  -- One process reads for a list at a time: a claim with a lease.
  claimed_by      text,
  claimed_until   timestamptz
);

create index follow_ups_open on follow_ups (list_operation) where stopped_reason is null;
