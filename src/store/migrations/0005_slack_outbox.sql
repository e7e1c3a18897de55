-- Every Slack message the workflow causes, written by the statement that causes it and
-- delivered by the outbox dispatcher: a crash, a deploy or a Slack outage loses none of them.
create table slack_outbox (
  id            bigserial primary key,
  request_id    bigint      not null references payment_requests (id),
  -- card: post the approval card · card_update: redraw it as the request is now ·
  -- notice: a line to the requester in the card's thread · confirmation: the requester's answer
  kind          text        not null check (kind in ('card', 'card_update', 'notice', 'confirmation')),
  -- What a notice tells (a status, or reconciled / resolved / late_outcome).
  event         text,
  -- Where a confirmation goes: {"responseUrl": …} or {"channelId": …, "userId": …}.
  target        jsonb,
  state         text        not null default 'waiting'
    check (state in ('waiting', 'sending', 'delivered', 'failed', 'superseded')),
  enqueued_at   timestamptz not null default now(),
  due_at        timestamptz not null default now(),
  -- Past this the delivery no longer means anything (a card after its request expired).
  give_up_at    timestamptz not null,
  attempts      integer     not null default 0,
  claimed_by    text,
  claimed_at    timestamptz,
  claimed_until timestamptz,
  -- A post that may have reached Slack: look for it before posting again (no idempotency key).
  maybe_posted  boolean     not null default false,
  last_error    text,
  delivered_at  timestamptz
);

-- Exactly one card per request, and at most one waiting redraw: a newer state joins it.
create unique index slack_outbox_one_card on slack_outbox (request_id) where kind = 'card';
create unique index slack_outbox_one_waiting_update on slack_outbox (request_id)
  where kind = 'card_update' and state = 'waiting';
create index slack_outbox_open on slack_outbox (due_at, id) where state in ('waiting', 'sending');
create index slack_outbox_request on slack_outbox (request_id, id);

-- Slack's rate limits as token buckets, shared by every payops process on this database, so
-- that replicas together keep to them (a limit is per app and workspace, not per process).
create table slack_rate_buckets (
  key           text        primary key,
  tokens        double precision not null,
  at            timestamptz not null,
  -- Slack said to wait (Retry-After): nothing goes before this.
  blocked_until timestamptz not null default 'epoch'
);
