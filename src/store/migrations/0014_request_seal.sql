-- Each request's seal (Signer.requestSeal): its id, requester, required approvals and
-- fingerprint, keyed with PAYOPS_SIGNING_KEY, which the database does not hold. Null on a request
-- stored before this column: nothing can seal it here (no key), so it is never executed — its
-- first approval stops it and asks for it to be requested again.
alter table payment_requests add column seal text;
