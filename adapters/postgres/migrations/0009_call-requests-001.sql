CREATE TABLE custodian_call_requests (call text PRIMARY KEY, n int NOT NULL)
