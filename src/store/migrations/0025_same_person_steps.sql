-- One approval per person per step of a request: a chain may let one person fill several steps
-- (same_person_may_fill_steps). A primary key cannot hold the step, which is null outside a
-- chain, so a unique index over it (null as -1) takes its place: still once per request there.
alter table approvals drop constraint approvals_pkey;
create unique index approvals_once_per_step on approvals (request_id, approver_id, coalesce(step, -1));
