-- Rendered by labgen from the lab "mysql_source". Do not edit: change the lab and render again.
-- The placeholders are filled from .env by init-users.sh.

-- The producer writes the lab's tables.
CREATE USER IF NOT EXISTS '${MYSQL_APP_USER}'@'%' IDENTIFIED BY '${MYSQL_APP_PASSWORD}';
GRANT SELECT, INSERT, UPDATE, DELETE ON `src`.* TO '${MYSQL_APP_USER}'@'%';

-- Flink's CDC sources read the binlog. mysql_native_password: the binlog
-- client cannot do MySQL 8's caching_sha2_password full authentication
-- without TLS ("Public Key Retrieval is not allowed").
CREATE USER IF NOT EXISTS '${MYSQL_CDC_USER}'@'%' IDENTIFIED WITH mysql_native_password BY '${MYSQL_CDC_PASSWORD}';
GRANT SELECT, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '${MYSQL_CDC_USER}'@'%';

-- The console and labgen run only read.
CREATE USER IF NOT EXISTS '${MYSQL_READER_USER}'@'%' IDENTIFIED BY '${MYSQL_READER_PASSWORD}';
GRANT SELECT ON `src`.* TO '${MYSQL_READER_USER}'@'%';
