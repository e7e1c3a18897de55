-- The audit log is hash-chained: each row commits to the one before it with an HMAC-SHA256 whose
-- key (derived from PAYOPS_SIGNING_KEY) is not in the database. payops gives it to each of its own
-- sessions as the HMAC's inner and outer padded keys (`payops.audit_ikey`, `payops.audit_okey`,
-- hex); a row written any other way is sealed with no key and `payops audit verify` names it.
-- So do an edited row, a deleted one and one inserted with this trigger disabled.

create table audit_chain_head (
  id   integer primary key check (id = 1),
  seq  bigint  not null,
  hash text    not null
);
insert into audit_chain_head (id, seq, hash) values (1, 0, '');

alter table audit_log add column chain_seq bigint unique;
alter table audit_log add column prev_hash text;
alter table audit_log add column row_hash text;

-- What a row's seal covers: every column but the seal, in one unambiguous text.
create function audit_log_message(a audit_log) returns text language sql stable as $$
  select json_build_array(a.chain_seq, a.prev_hash, a.id,
    to_char(a.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), a.request_id, a.actor,
    a.event, a.from_status, a.to_status, a.fingerprint, a.detail)::text
$$;

-- HMAC-SHA256 of a row's message, with the padded keys of this session.
create function audit_log_seal(a audit_log) returns text language sql stable as $$
  select encode(sha256(
    decode(coalesce(current_setting('payops.audit_okey', true), ''), 'hex') ||
    sha256(decode(coalesce(current_setting('payops.audit_ikey', true), ''), 'hex') ||
           convert_to(audit_log_message(a), 'UTF8'))), 'hex')
$$;

-- Rows join the chain one at a time, in commit order of the head's row lock.
create function audit_log_chain() returns trigger language plpgsql as $$
declare
  head audit_chain_head%rowtype;
begin
  select * into head from audit_chain_head where id = 1 for update;
  new.chain_seq := head.seq + 1;
  new.prev_hash := head.hash;
  new.row_hash := audit_log_seal(new);
  update audit_chain_head set seq = new.chain_seq, hash = new.row_hash where id = 1;
  return new;
end;
$$;

create trigger audit_log_chained before insert on audit_log
  for each row execute function audit_log_chain();

-- Rows written before the chain join it now, in the order they were written.
alter table audit_log disable trigger audit_log_no_update;
do $$
declare
  row_id bigint;
  sealed audit_log%rowtype;
  head audit_chain_head%rowtype;
begin
  for row_id in select id from audit_log order by id loop
    select * into head from audit_chain_head where id = 1;
    select * into sealed from audit_log where id = row_id;
    sealed.chain_seq := head.seq + 1;
    sealed.prev_hash := head.hash;
    sealed.row_hash := audit_log_seal(sealed);
    update audit_log set chain_seq = sealed.chain_seq, prev_hash = sealed.prev_hash,
      row_hash = sealed.row_hash where id = row_id;
    update audit_chain_head set seq = sealed.chain_seq, hash = sealed.row_hash where id = 1;
  end loop;
end;
$$;
alter table audit_log enable trigger audit_log_no_update;

-- Emptying it is refused as changing a row is (an owner can still disable both: the chain tells).
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_is_append_only();
