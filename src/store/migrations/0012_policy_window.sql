-- A policy window reads a requester's requests to one payee made since a time: one range scan.
create index payment_requests_requester_payee
  on payment_requests (requester_id, payee_tag, created_at)
  where payee_tag is not null;
