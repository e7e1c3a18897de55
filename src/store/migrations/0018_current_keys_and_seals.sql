-- Every stored request carries the current keys and its seal, and every approval its seal:
-- payops keeps no code to key or seal again rows made before those existed. A store holding such
-- a row refuses this migration instead.
do $$
begin
  if exists (select 1 from payment_requests where keys_version < 2 or seal is null)
     or exists (select 1 from approvals where seal is null) then
    raise exception 'the store holds requests or approvals keyed or sealed by an earlier payops version, which this version cannot convert';
  end if;
end $$;
alter table payment_requests drop column keys_version;
alter table payment_requests alter column seal set not null;
alter table approvals alter column seal set not null;
