-- Announcements: messages to the approvals channel that belong to no request (the approval
-- policy changed), sent by the Slack outbox like every other message, so an outage loses none.
-- What one tells is data in `body`; the Slack side words it.
alter table slack_outbox alter column request_id drop not null;
alter table slack_outbox drop constraint slack_outbox_kind_check;
alter table slack_outbox add constraint slack_outbox_kind_check
  check (kind in ('card', 'card_update', 'notice', 'confirmation', 'announcement'));
alter table slack_outbox add constraint slack_outbox_announcement_alone
  check ((kind = 'announcement') = (request_id is null));
alter table slack_outbox add column body jsonb;

-- The last policy recorded is read at every start: without scanning the whole log.
create index audit_log_policy_loaded on audit_log (id) where event = 'policy_loaded';
