-- Rendered by labgen from the lab "postgres_source". Do not edit: change the lab and render again.
-- Run by init-users.sh with psql, which fills the variables from .env.

-- The producer writes the lab's tables.
CREATE ROLE :"app_user" LOGIN PASSWORD :'app_password';
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app_user";

-- Flink's CDC sources read the write-ahead log through a replication slot
-- each, and snapshot the tables first.
CREATE ROLE :"cdc_user" LOGIN REPLICATION PASSWORD :'cdc_password';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"cdc_user";

-- The console and labgen run only read; their sessions are read-only too.
CREATE ROLE :"reader_user" LOGIN PASSWORD :'reader_password';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"reader_user";
ALTER ROLE :"reader_user" SET default_transaction_read_only = on;
