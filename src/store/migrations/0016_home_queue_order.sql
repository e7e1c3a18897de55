-- Stale Homes are drawn for people who may approve first, then the oldest drawing first
-- (HomeStore's claim): the index follows that order.
drop index home_viewers_stale;
create index home_viewers_stale on home_viewers (is_approver desc, published_at nulls first)
  where stale;
