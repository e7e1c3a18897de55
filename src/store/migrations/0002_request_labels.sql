-- Names shown beside identifiers on the approval message (recipient, wallet), looked up from the
-- provider when the request is made. Display only: never part of what is sent.
alter table payment_requests add column labels jsonb;
