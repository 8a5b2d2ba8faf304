CREATE TABLE IF NOT EXISTS custodian_consumer_offsets (
  group_id text NOT NULL,
  topic text NOT NULL,
  partition int NOT NULL,
  kafka_offset bigint NOT NULL,
  position bigint NOT NULL,
  applied bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (group_id, topic, partition)
);
