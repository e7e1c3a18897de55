-- A followed request's provider status shows on its requester's Home: a change of it is a
-- change of that Home, as a change of the request is (migration 0011), by the same function.
create or replace function home_request_changed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from home_viewers) then
    insert into home_changes (request_id)
      values ((to_jsonb(new) ->> case tg_table_name when 'follow_ups' then 'request_id' else 'id' end)::bigint);
  end if;
  return null;
end $$;

create trigger follow_ups_home after insert or update of last_status, stopped_reason, disappeared_at
  on follow_ups for each row execute function home_request_changed();
