/** One schema change: applied once, in version order, by migrate.ts. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const HASH_RE = "^[0-9A-HJKMNP-TV-Z]{13}$";
const THREAD_ID_RE = "^[0-7][0-9A-HJKMNP-TV-Z]{25}$";

/**
 * The store's tables, one migration per schema change, applied in order and never edited once
 * released (a database remembers which versions it has). Pointers and registry entries are
 * kept as the exact JSON text the filesystem stores, so a store can be copied either way and a
 * hand-edited row is reported like a hand-edited file.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "cas nodes, threads, registry, leases",
    sql: `
create table uwf_cas_nodes (
  hash text primary key,
  type text not null,
  bytes bytea not null,
  refs text[] not null default '{}',
  written_at timestamptz not null default now()
);

-- Filters of \`thread list\` run in SQL, so the columns they use are derived from the pointer by a
-- trigger: they stay right even when someone edits a pointer by hand, and an unreadable pointer
-- lists as 'corrupt'. The checks mirror threads/pointer-check.ts, which stays the authority.
create function uwf_is_hash(value jsonb) returns boolean language sql immutable as $$
  select coalesce(jsonb_typeof(value) = 'string' and (value #>> '{}') ~ '${HASH_RE}', false)
$$;

-- A non-negative integer, as JavaScript's Number.isInteger sees it (1.0 is one).
create function uwf_is_count(value jsonb) returns boolean language sql immutable as $$
  select coalesce(
    jsonb_typeof(value) = 'number'
    and (value #>> '{}')::numeric >= 0
    and (value #>> '{}')::numeric = trunc((value #>> '{}')::numeric),
    false)
$$;

create function uwf_pointer_ok(p jsonb, id text) returns boolean language sql immutable as $$
  select coalesce(
    jsonb_typeof(p) = 'object'
    and p -> 'thread' = to_jsonb(id)
    and jsonb_typeof(p -> 'workflow') = 'string'
    and jsonb_typeof(p -> 'cwd') = 'string'
    and jsonb_typeof(p -> 'createdAt') = 'string'
    and jsonb_typeof(p -> 'updatedAt') = 'string'
    and uwf_is_hash(p -> 'workflowHash')
    and uwf_is_hash(p -> 'start')
    and uwf_is_hash(p -> 'head')
    and (not p ? 'forkedFrom' or uwf_is_hash(p -> 'forkedFrom'))
    and jsonb_typeof(p -> 'status') = 'string'
    and p ->> 'status' in ('idle', 'suspended', 'completed', 'cancelled')
    and jsonb_typeof(p -> 'currentRole') in ('string', 'null')
    and uwf_is_count(p -> 'steps')
    and (not p ? 'rev' or uwf_is_count(p -> 'rev'))
    and (
      jsonb_typeof(p -> 'suspended') = 'null'
      or (
        jsonb_typeof(p -> 'suspended') = 'object'
        and jsonb_typeof(p -> 'suspended' -> 'role') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'reason') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'kind') = 'string'
        and p -> 'suspended' ->> 'kind' in ('question', 'failure')
        and (not (p -> 'suspended') ? 'prompt'
             or jsonb_typeof(p -> 'suspended' -> 'prompt') = 'string')
      )
    ),
    false)
$$;

-- Milliseconds since the epoch in a ULID's first ten characters (Crockford Base32).
create function uwf_ulid_ms(id text) returns bigint language plpgsql immutable as $$
declare
  ms bigint := 0;
begin
  for i in 1..10 loop
    ms := ms * 32 + strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(id, i, 1)) - 1;
  end loop;
  return ms;
end
$$;

create table uwf_threads (
  id text primary key check (id ~ '${THREAD_ID_RE}'),
  pointer text not null,
  -- Derived by uwf_threads_derive (never written by uwf itself):
  rev bigint,
  status text not null,
  workflow text,
  created_ms bigint not null
);

create function uwf_threads_derive() returns trigger language plpgsql as $$
declare
  p jsonb;
begin
  begin
    p := new.pointer::jsonb;
  exception when others then
    p := null;
  end;
  if uwf_pointer_ok(p, new.id) then
    new.status := p ->> 'status';
    new.workflow := p ->> 'workflow';
    new.rev := coalesce((p ->> 'rev')::bigint, 0);
    begin
      new.created_ms := floor(extract(epoch from (p ->> 'createdAt')::timestamptz) * 1000);
    exception when others then
      new.created_ms := uwf_ulid_ms(new.id);
    end;
  else
    -- No revision: a compare-and-swap never matches a corrupt pointer.
    new.status := 'corrupt';
    new.workflow := null;
    new.rev := null;
    new.created_ms := uwf_ulid_ms(new.id);
  end if;
  return new;
end
$$;

create trigger uwf_threads_derive before insert or update on uwf_threads
  for each row execute function uwf_threads_derive();

create index uwf_threads_status on uwf_threads (status, id);
create index uwf_threads_workflow on uwf_threads (workflow, id);
create index uwf_threads_created on uwf_threads (created_ms);

create table uwf_registry (
  name text primary key,
  entry text not null
);

create table uwf_leases (
  thread text primary key,
  token text not null,
  host text not null,
  pid integer not null,
  start_time text,
  command text not null,
  acquired_at timestamptz not null default now(),
  expires_at timestamptz not null,
  child jsonb
);
`,
  },
  {
    version: 2,
    name: "budget and human suspensions, fork families",
    sql: `
-- A thread suspended by a budget (kind 'budget') or waiting for a human's answer (kind
-- 'human') is a readable pointer, not a corrupt one.
create or replace function uwf_pointer_ok(p jsonb, id text) returns boolean language sql immutable as $$
  select coalesce(
    jsonb_typeof(p) = 'object'
    and p -> 'thread' = to_jsonb(id)
    and jsonb_typeof(p -> 'workflow') = 'string'
    and jsonb_typeof(p -> 'cwd') = 'string'
    and jsonb_typeof(p -> 'createdAt') = 'string'
    and jsonb_typeof(p -> 'updatedAt') = 'string'
    and uwf_is_hash(p -> 'workflowHash')
    and uwf_is_hash(p -> 'start')
    and uwf_is_hash(p -> 'head')
    and (not p ? 'forkedFrom' or uwf_is_hash(p -> 'forkedFrom'))
    and jsonb_typeof(p -> 'status') = 'string'
    and p ->> 'status' in ('idle', 'suspended', 'completed', 'cancelled')
    and jsonb_typeof(p -> 'currentRole') in ('string', 'null')
    and uwf_is_count(p -> 'steps')
    and (not p ? 'rev' or uwf_is_count(p -> 'rev'))
    and (
      jsonb_typeof(p -> 'suspended') = 'null'
      or (
        jsonb_typeof(p -> 'suspended') = 'object'
        and jsonb_typeof(p -> 'suspended' -> 'role') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'reason') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'kind') = 'string'
        and p -> 'suspended' ->> 'kind' in ('question', 'failure', 'budget', 'human')
        and (not (p -> 'suspended') ? 'prompt'
             or jsonb_typeof(p -> 'suspended' -> 'prompt') = 'string')
      )
    ),
    false)
$$;

-- The StartNode a thread begins with: a thread and its forks share it, so \`thread tree\` finds
-- a fork family with one indexed query instead of reading every pointer.
alter table uwf_threads add column start text;

create or replace function uwf_threads_derive() returns trigger language plpgsql as $$
declare
  p jsonb;
begin
  begin
    p := new.pointer::jsonb;
  exception when others then
    p := null;
  end;
  if uwf_pointer_ok(p, new.id) then
    new.status := p ->> 'status';
    new.workflow := p ->> 'workflow';
    new.start := p ->> 'start';
    new.rev := coalesce((p ->> 'rev')::bigint, 0);
    begin
      new.created_ms := floor(extract(epoch from (p ->> 'createdAt')::timestamptz) * 1000);
    exception when others then
      new.created_ms := uwf_ulid_ms(new.id);
    end;
  else
    -- No revision: a compare-and-swap never matches a corrupt pointer.
    new.status := 'corrupt';
    new.workflow := null;
    new.start := null;
    new.rev := null;
    new.created_ms := uwf_ulid_ms(new.id);
  end if;
  return new;
end
$$;

-- Derive the new column (and re-judge budget pointers) for the rows already there.
update uwf_threads set pointer = pointer;

create index uwf_threads_start on uwf_threads (start, id);
`,
  },
  {
    version: 3,
    name: "guard and retry suspensions",
    sql: `
-- A thread stopped by a workflow guard (kind 'guard', with the guard's name) or waiting to
-- retry a transiently failed agent (kind 'retry', with its retryAfter time) is a readable
-- pointer, not a corrupt one. Mirrors pointer-check.ts.
create or replace function uwf_pointer_ok(p jsonb, id text) returns boolean language sql immutable as $$
  select coalesce(
    jsonb_typeof(p) = 'object'
    and p -> 'thread' = to_jsonb(id)
    and jsonb_typeof(p -> 'workflow') = 'string'
    and jsonb_typeof(p -> 'cwd') = 'string'
    and jsonb_typeof(p -> 'createdAt') = 'string'
    and jsonb_typeof(p -> 'updatedAt') = 'string'
    and uwf_is_hash(p -> 'workflowHash')
    and uwf_is_hash(p -> 'start')
    and uwf_is_hash(p -> 'head')
    and (not p ? 'forkedFrom' or uwf_is_hash(p -> 'forkedFrom'))
    and jsonb_typeof(p -> 'status') = 'string'
    and p ->> 'status' in ('idle', 'suspended', 'completed', 'cancelled')
    and jsonb_typeof(p -> 'currentRole') in ('string', 'null')
    and uwf_is_count(p -> 'steps')
    and (not p ? 'rev' or uwf_is_count(p -> 'rev'))
    and (
      jsonb_typeof(p -> 'suspended') = 'null'
      or (
        jsonb_typeof(p -> 'suspended') = 'object'
        and jsonb_typeof(p -> 'suspended' -> 'role') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'reason') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'kind') = 'string'
        and p -> 'suspended' ->> 'kind' in ('question', 'failure', 'budget', 'human', 'guard', 'retry')
        and (not (p -> 'suspended') ? 'prompt'
             or jsonb_typeof(p -> 'suspended' -> 'prompt') = 'string')
        and (not (p -> 'suspended') ? 'retryAfter'
             or jsonb_typeof(p -> 'suspended' -> 'retryAfter') = 'string')
        and (not (p -> 'suspended') ? 'guard'
             or p -> 'suspended' ->> 'guard' in ('maxSteps', 'maxVisits'))
      )
    ),
    false)
$$;

-- Re-judge the rows already there.
update uwf_threads set pointer = pointer;
`,
  },
  {
    version: 4,
    name: "fan-out suspensions and child threads",
    sql: `
-- A parent waiting for its fan-out's children (kind 'fanout') and a child naming its parent
-- (\`parent\`: thread, step, index) are readable pointers, not corrupt ones. Mirrors
-- pointer-check.ts.
create or replace function uwf_pointer_ok(p jsonb, id text) returns boolean language sql immutable as $$
  select coalesce(
    jsonb_typeof(p) = 'object'
    and p -> 'thread' = to_jsonb(id)
    and jsonb_typeof(p -> 'workflow') = 'string'
    and jsonb_typeof(p -> 'cwd') = 'string'
    and jsonb_typeof(p -> 'createdAt') = 'string'
    and jsonb_typeof(p -> 'updatedAt') = 'string'
    and uwf_is_hash(p -> 'workflowHash')
    and uwf_is_hash(p -> 'start')
    and uwf_is_hash(p -> 'head')
    and (not p ? 'forkedFrom' or uwf_is_hash(p -> 'forkedFrom'))
    and jsonb_typeof(p -> 'status') = 'string'
    and p ->> 'status' in ('idle', 'suspended', 'completed', 'cancelled')
    and jsonb_typeof(p -> 'currentRole') in ('string', 'null')
    and uwf_is_count(p -> 'steps')
    and (not p ? 'rev' or uwf_is_count(p -> 'rev'))
    and (
      not p ? 'parent'
      or (
        jsonb_typeof(p -> 'parent') = 'object'
        and jsonb_typeof(p -> 'parent' -> 'thread') = 'string'
        and (p -> 'parent' ->> 'thread') ~ '${THREAD_ID_RE}'
        and uwf_is_hash(p -> 'parent' -> 'step')
        and uwf_is_count(p -> 'parent' -> 'index')
      )
    )
    and (
      jsonb_typeof(p -> 'suspended') = 'null'
      or (
        jsonb_typeof(p -> 'suspended') = 'object'
        and jsonb_typeof(p -> 'suspended' -> 'role') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'reason') = 'string'
        and jsonb_typeof(p -> 'suspended' -> 'kind') = 'string'
        and p -> 'suspended' ->> 'kind' in ('question', 'failure', 'budget', 'human', 'guard', 'retry', 'fanout')
        and (not (p -> 'suspended') ? 'prompt'
             or jsonb_typeof(p -> 'suspended' -> 'prompt') = 'string')
        and (not (p -> 'suspended') ? 'retryAfter'
             or jsonb_typeof(p -> 'suspended' -> 'retryAfter') = 'string')
        and (not (p -> 'suspended') ? 'guard'
             or p -> 'suspended' ->> 'guard' in ('maxSteps', 'maxVisits'))
      )
    ),
    false)
$$;

-- Re-judge the rows already there.
update uwf_threads set pointer = pointer;
`,
  },
  {
    version: 5,
    name: "thread list pages without a count; title filter column",
    sql: `
-- \`thread list --title\` filters a derived, lower-cased title column instead of parsing every
-- pointer; with pg_trgm (a trusted extension: a database owner may create it, no superuser)
-- a trigram index serves it, else the filter walks the newest rows until a page is full.
alter table uwf_threads add column title_lc text;

create or replace function uwf_threads_derive() returns trigger language plpgsql as $$
declare
  p jsonb;
begin
  begin
    p := new.pointer::jsonb;
  exception when others then
    p := null;
  end;
  if uwf_pointer_ok(p, new.id) then
    new.status := p ->> 'status';
    new.workflow := p ->> 'workflow';
    new.start := p ->> 'start';
    new.title_lc := lower(p ->> 'title');
    new.rev := coalesce((p ->> 'rev')::bigint, 0);
    begin
      new.created_ms := floor(extract(epoch from (p ->> 'createdAt')::timestamptz) * 1000);
    exception when others then
      new.created_ms := uwf_ulid_ms(new.id);
    end;
  else
    -- No revision: a compare-and-swap never matches a corrupt pointer.
    new.status := 'corrupt';
    new.workflow := null;
    new.start := null;
    new.title_lc := null;
    new.rev := null;
    new.created_ms := uwf_ulid_ms(new.id);
  end if;
  return new;
end
$$;

update uwf_threads set pointer = pointer where pointer::text like '%"title"%';

do $$
begin
  begin
    create extension if not exists pg_trgm;
    create index uwf_threads_title on uwf_threads using gin (title_lc gin_trgm_ops);
  exception when others then
    raise notice 'no pg_trgm (%): title filters walk the newest threads', sqlerrm;
  end;
end
$$;
`,
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
