-- The members of each approver group as payops last learnt them from Slack, to compare every
-- later read with: a difference is audited and announced once, however many replicas read it.
create table approver_groups (
  group_id   text        primary key,
  -- Slack user ids, sorted, each once.
  members    text[]      not null,
  -- When the read that found these members began (the reading process's clock): an older read
  -- finishing late is not taken for a change.
  read_at    timestamptz not null,
  changed_at timestamptz not null default now()
);
