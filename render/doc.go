// Package render turns a loaded lab into the files of a runnable lab
// directory. Render is pure: it returns the files as data (path → bytes)
// and writes nothing; Write puts them on disk, only into a directory that
// is new, empty or a render's, never over a file no render wrote. The
// same lab, variables and directory give the same bytes on any machine:
// maps are sorted, nothing carries a time stamp, and of the directory's
// path only a hash names the compose project.
//
// The rendered directory (the contract read by the runtime, the producer
// and the console, which never read HCL):
//
//	compose.yaml            the whole stack; `docker compose up` on the directory alone runs it
//	.env                    passwords and user names (the only place secrets live; mode 0600)
//	lab.json                the resolved lab (schemas.Lab) with its format version, read with schemas.ReadLabJSON
//	labgen.lock             images, connector jars with sha256, sha256 of every rendered file
//	runbook.md              the experiments as a reader follows them
//	stream-lab              POSIX sh: smoke, batch, compose …, console
//	flink/Dockerfile        the Flink image with the connector jars of the lock
//	flink/config.yaml       Flink configuration (checkpoints, restart strategy)
//	flink/entrypoint.sh     gives the shared volumes to the flink user, then runs Flink's entrypoint
//	scripts/flink-jobs.sh   run in the Flink containers: run-sql, submit, tiering, batch-loop
//	labgen/Dockerfile       the labgen image (producer, console), built from labgen/src
//	labgen/src/…            labgen's own source, so the image builds with Docker alone
//	sql/mysql/              schema.sql (database, tables), users.sql (users and grants), init-users.sh
//	sql/postgres/           the same for PostgreSQL, with the publication CDC reads
//	sql/clickhouse/schema.sql  database, serving tables, Kafka-engine tables and views
//	sql/flink/<job>.sql     one file per job: SET, CREATE CATALOG/TABLE, the job
//	sql/presets/<engine>/<preset>.sql  every preset, for the console and by hand
//	records/                written by labgen run; never touched by render
//
// .env keys: MYSQL_ROOT_PASSWORD, MYSQL_APP_USER / MYSQL_APP_PASSWORD (the
// producer writes), MYSQL_CDC_USER / MYSQL_CDC_PASSWORD (Flink CDC),
// MYSQL_READER_USER / MYSQL_READER_PASSWORD (read-only: console, runs),
// CLICKHOUSE_USER / CLICKHOUSE_PASSWORD (DDL and ingestion),
// CLICKHOUSE_READER_USER / CLICKHOUSE_READER_PASSWORD (readonly profile),
// COMPOSE_PROJECT_NAME (ProjectName: the directory's own).
//
// Services (compose names): mysql, kafka, kafka-init, kafka-ui, jobmanager,
// taskmanager, sql-gateway, job-submitter, clickhouse, clickhouse-init,
// zookeeper, coordinator-server, tablet-server, tiering, producer, console,
// batch-loop: only those of the components the lab declares. kafka-init,
// clickhouse-init, tiering (starts the Fluss tiering job) and job-submitter
// (starts the streaming jobs) run once and exit 0; every other service runs
// on and has a health check. Host ports bind to 127.0.0.1 and come from
// the lab's stack:
// MySQL 3306, Kafka 9092 (containers use kafka:19092), Flink UI/REST 8081,
// SQL gateway 8083, ClickHouse HTTP 8123 and native 9000, Kafka UI 8080,
// console 8088.
//
// Where each fact lives: a service's memory limit and health check are
// its description in schemas' component registry (schemas.ServiceDesc);
// what render writes for a source database is its sourceDB (source.go,
// one file per database: mysql.go, postgres.go); the long shell scripts
// are embedded templates (templates/*.sh.tmpl) whose data Go computes.
// testdata/cases holds a small lab per feature beside the files it
// renders (see its README).
package render
