-- A record seen in a success status is still followed, until `watch_until`, for a return or a
-- reversal (an ACH return comes days after the payout shows completed); past it, following ends
-- as `return_window`.
alter table follow_ups add column watch_until timestamptz;
alter table follow_ups drop constraint follow_ups_stopped_reason_check;
alter table follow_ups add constraint follow_ups_stopped_reason_check
  check (stopped_reason in ('final_status', 'time_limit', 'return_window'));
