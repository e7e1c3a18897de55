-- Each destination payops has paid (its keyed tag, never the account) with the name it was paid
-- under (keyed too): an approver is told of a new payee, and of a name now paid elsewhere.
create table paid_payees (
  payee_tag     text        not null,
  name_tag      text        not null default '',
  first_paid_at timestamptz not null default now(),
  request_id    bigint,
  primary key (payee_tag, name_tag)
);
create index paid_payees_name on paid_payees (name_tag);

alter table payment_requests add column payee_tag text;
alter table payment_requests add column payee_name_tag text;
