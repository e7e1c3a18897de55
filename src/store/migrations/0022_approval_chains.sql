-- A request's approval chain (the steps its policy rule named, in order, with the rule and the
-- policy version), sealed with it; none for a request any approvers may approve.
alter table payment_requests add column approval_chain jsonb;
-- The step of its request's chain an approval filled (0 is the first); none outside a chain.
alter table approvals add column step integer;
