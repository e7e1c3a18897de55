-- When a pending request's approvers were nudged in its thread, and when again as its expiry
-- neared: each set by one conditional update, so of several replicas exactly one reminds.
alter table payment_requests add column reminded_at timestamptz;
alter table payment_requests add column expiry_reminded_at timestamptz;

-- Everyone who opened payops's Home tab: only their Home is redrawn when something in it
-- changes (views.publish for a person who never looked would be Slack calls for nobody).
create table home_viewers (
  user_id          text        primary key,
  first_opened_at  timestamptz not null default now(),
  -- As found at their last publish: every approver's queue changes with any pending request.
  is_approver      boolean     not null default false,
  -- Something in their Home changed since it was last drawn.
  stale            boolean     not null default true,
  -- One process draws a Home at a time (a claim), and a Home is drawn at most so often.
  publishing_until timestamptz,
  published_at     timestamptz
);
create index home_viewers_stale on home_viewers (published_at nulls first) where stale;

-- Which requests changed (null: the kill switch), appended by the triggers below and consumed
-- by the Home refresher: appending takes no lock a payment's own transaction could wait on.
create table home_changes (
  id          bigserial   primary key,
  request_id  bigint,
  changed_at  timestamptz not null default now()
);

create function home_request_changed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from home_viewers) then
    insert into home_changes (request_id) values (new.id);
  end if;
  return null;
end $$;

create trigger payment_requests_home after insert or update on payment_requests
  for each row execute function home_request_changed();

create function home_freeze_changed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from home_viewers) then
    insert into home_changes (request_id) values (null);
  end if;
  return null;
end $$;

create trigger freeze_state_home after update on freeze_state
  for each row execute function home_freeze_changed();

-- A Home reads a person's own requests and the decisions they took part in.
create index payment_requests_requester on payment_requests (requester_id, id);
create index payment_requests_decided_by on payment_requests (decided_by) where decided_by is not null;
create index approvals_approver on approvals (approver_id);
