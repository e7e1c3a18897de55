-- Each claim gets a token of its own; the statement that lets the one call go out (`sent_at`)
-- names it, so a process that lost its claim (its lease ran out while it waited) sends nothing.
alter table payment_requests add column claim_token text;
alter table payment_requests add column sent_at timestamptz;

-- The hold ("no second try while the first may have paid") compares the canonical form of a
-- write, not its bytes: `5.50` and `5.500` to one payee are one payment. Rows made before this
-- column keep their byte fingerprint as their hold key.
alter table payment_requests add column hold_key text;
update payment_requests set hold_key = fingerprint;
alter table payment_requests alter column hold_key set not null;
drop index payment_requests_unsettled;
create index payment_requests_unsettled on payment_requests (hold_key)
  where status in ('executing', 'unknown');

-- What each approver approved: a keyed seal of the request and its fingerprint (`Signer`), checked
-- before the call. Approvals made before it have none and cannot complete a claim.
alter table approvals add column seal text;
