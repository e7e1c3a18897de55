-- An approver's question to the requester (who asked, when, the question scrubbed): the request
-- stays pending, shown as waiting on its requester until an approval comes after the question.
alter table payment_requests add column question jsonb;

-- A request edited and resubmitted: the new one names the one it replaces, which ends
-- superseded. Unique: a request is replaced once.
alter table payment_requests add column supersedes bigint unique references payment_requests (id);
alter table payment_requests drop constraint payment_requests_status_check;
alter table payment_requests add constraint payment_requests_status_check
  check (status in ('pending', 'executing', 'submitted', 'failed', 'unknown',
                    'rejected', 'cancelled', 'expired', 'superseded'));
