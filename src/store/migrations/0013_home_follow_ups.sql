-- A followed request's provider status shows on its requester's Home: a change of it is a
-- change of that Home, as a change of the request is (migration 0011).
create function home_follow_up_changed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from home_viewers) then
    insert into home_changes (request_id) values (new.request_id);
  end if;
  return null;
end $$;

create trigger follow_ups_home after insert or update of last_status, stopped_reason, disappeared_at
  on follow_ups for each row execute function home_follow_up_changed();
