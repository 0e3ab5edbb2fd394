-- Run ids ordered by time (decision 448): a UUID of version 7, the creation millisecond in its first 48
-- bits and random bits after, so a new run's id is greater than every earlier one's. Usage records and
-- rated lines are keyed by run first: with random ids each run's few hundred thousand rows went into
-- the middle of both primary keys, every insert descending the tree and splitting pages in half; now
-- they go in at the keys' right edge, as the rows of one run already arrive in key order. Ids already
-- given stay as they are.
CREATE FUNCTION svc_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;
--> statement-breakpoint
ALTER TABLE "runs" ALTER COLUMN "id" SET DEFAULT svc_uuid_v7();
