-- The second database: read models built by the Kafka consumer group (custodian kafka consume).
CREATE DATABASE custodian_reads OWNER custodian;
