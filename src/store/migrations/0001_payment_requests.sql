-- Payment requests, their approvals, the kill switch and the append-only audit log.

create table payment_requests (
  id                bigserial primary key,
  operation_id      text        not null,
  path_params       jsonb       not null default '{}'::jsonb,
  -- The exact JSON text that will be sent; null for a write without a body.
  body              text,
  fingerprint       text        not null,
  requester_id      text        not null,
  status            text        not null default 'pending'
    check (status in ('pending', 'executing', 'submitted', 'failed', 'unknown',
                      'rejected', 'cancelled', 'expired')),
  required_approvals integer    not null check (required_approvals between 1 and 5),
  created_at        timestamptz not null default now(),
  expires_at        timestamptz not null,
  updated_at        timestamptz not null default now(),
  channel_id        text,
  message_ts        text,
  requester_channel_id text,
  decided_by        text,
  reason            text,
  -- Set when claimed for its one call; a process that dies leaves it, and the lease finds it.
  claimed_at        timestamptz,
  claimed_by        text,
  outcome           jsonb,
  reconciliation    jsonb
);

create index payment_requests_pending on payment_requests (expires_at) where status = 'pending';
create index payment_requests_executing on payment_requests (claimed_at) where status = 'executing';

create table approvals (
  request_id  bigint      not null references payment_requests (id),
  approver_id text        not null,
  approved_at timestamptz not null default now(),
  primary key (request_id, approver_id)
);

create table audit_log (
  id          bigserial primary key,
  at          timestamptz not null default now(),
  request_id  bigint,
  actor       text        not null,
  event       text        not null,
  from_status text,
  to_status   text,
  fingerprint text,
  detail      jsonb
);

create index audit_log_request on audit_log (request_id, id);

-- Append-only: the database itself refuses to change or remove an audit row.
create function audit_log_is_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only';
end;
$$;

create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_is_append_only();

-- One row: the kill switch.
create table freeze_state (
  id         integer primary key check (id = 1),
  frozen     boolean     not null default false,
  reason     text,
  changed_by text,
  changed_at timestamptz
);

insert into freeze_state (id, frozen) values (1, false);
