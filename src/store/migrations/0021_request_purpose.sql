-- Why the money moves, as the requester stated it and payops scrubbed it: shown on the approval
-- message, sealed with the request, never part of what is sent to the provider.
alter table payment_requests add column purpose text;
