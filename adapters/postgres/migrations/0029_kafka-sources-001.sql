-- Kafka with several tenant databases (CUSTODIAN_DATABASES): each database's relay publishes its
-- own log, and positions of different databases are not one sequence. A consumer group keeps the
-- highest position applied per (partition, source database): `source` is the message's
-- `database` header, '' for a deployment of one database (every row written before this).
-- The row of source '' is the partition's anchor: its lock orders the partition's chunks and its
-- kafka_offset is the partition's.
ALTER TABLE custodian_consumer_offsets ADD COLUMN source text NOT NULL DEFAULT '';
ALTER TABLE custodian_consumer_offsets DROP CONSTRAINT custodian_consumer_offsets_pkey;
ALTER TABLE custodian_consumer_offsets ADD PRIMARY KEY (group_id, topic, partition, source);
-- Positions a relay does not publish: the events a move of a tenant copied into this database,
-- already published from the database the tenant came from (with that database's positions).
CREATE TABLE custodian_relay_skips (
  first_position bigint PRIMARY KEY,
  last_position bigint NOT NULL
);
