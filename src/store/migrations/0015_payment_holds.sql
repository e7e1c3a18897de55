-- The hold compares the payment a write makes besides its canonical form (`Signer.paymentKey`:
-- payee's tag, wallet, amount and currency), so the same payment spelt otherwise waits too; and
-- hold keys and payee tags now compare banking identifiers in one canonical form. The signing key
-- is not in the database, so rows keyed before keep `keys_version` 1 here and are keyed again at
-- start-up (`rekeyStoredRequests`): an outcome unknown from before still holds, and the payees
-- paid before are still known.
alter table payment_requests add column payment_key text;
alter table payment_requests add column keys_version smallint not null default 1;
create index payment_requests_unsettled_payment on payment_requests (payment_key)
  where status in ('executing', 'unknown');
create index payment_requests_keys_version on payment_requests (keys_version)
  where keys_version < 2;
