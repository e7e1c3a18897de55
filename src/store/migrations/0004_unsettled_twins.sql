-- A request is held while another one for exactly the same write (same fingerprint) is being
-- sent or has an outcome nobody has confirmed yet: these rows are few, and every approval and
-- every new request looks them up by fingerprint.
create index payment_requests_unsettled on payment_requests (fingerprint)
  where status in ('executing', 'unknown');
