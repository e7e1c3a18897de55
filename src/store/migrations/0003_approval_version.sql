-- Bumped by every approval: the approve statement writes only if the request is still at the
-- version its rules were checked against (optimistic concurrency: a read and one conditional
-- write instead of a locking transaction of five round trips).
alter table payment_requests add column version bigint not null default 0;
