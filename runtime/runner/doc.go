// Package runner runs a rendered lab's experiments into a lab record. It
// reads only the lab directory (lab.json, .env, sql/flink/<job>.sql) and
// talks to the services through the runtime's clients: package query for
// MySQL and ClickHouse, kafkaread for Kafka, flinkapi for Flink's REST API
// and SQL gateway, compose for docker compose.
//
// # A run
//
//   - The streaming jobs that are not running are submitted through the
//     SQL gateway (${NAME} placeholders filled from .env when sending, kept
//     in what is recorded); their IDs go into the record's head.
//   - Experiments run in lab order, steps in order. An unavailable
//     experiment is recorded as skipped with the reason lab.json gives.
//   - After each step the record is written (record.Write, atomic), so a
//     run killed at any point keeps every finished step; Options.Resume
//     continues after the last one, with the captured values restored
//     from record.json. A step interrupted by Ctrl-C is not recorded.
//   - Captures are evaluated over the step's result; a capture that finds
//     nothing (an error, or null) fails the step with the reason, and every
//     later step whose SQL, Kafka key or wait needs the value is skipped,
//     saying which value and why it is missing.
//   - Expectations are evaluated and recorded as held or not held; they
//     never stop anything. on_failure = "stop" skips the rest of the
//     experiment after a failed step.
//   - wait re-runs a step every interval until its condition holds; a
//     timeout is recorded as timed_out (not an error) with the last run's
//     output.
//
// # Result values
//
// What capture, expect and wait's until see as result, per step kind.
// Lists are HCL tuples (rows may differ in a column's type, NULL in one row
// and a string in the next); index, for and length work as on lists.
//
// query (MySQL, ClickHouse):
//
//	{ columns = ["order_id", …], rows = [{ order_id = 11, payment_status = null, … }, …],
//	  row_count = 10, truncated = false, elapsed_ms = 12 }
//
// Integers and decimals are exact numbers, SQL NULL is null, dates and
// times are text ("2026-11-29 10:00:01.123"). So
// result.rows[0].order_id and [for r in result.rows : r.order_id if
// r.payment_status == null][0] work as written.
//
// kafka:
//
//	{ topic, messages = [{ partition, offset, timestamp, key, value, tombstone }],
//	  count, matched, scanned, truncated, timed_out }
//
// key and value are text (bytes that are not UTF-8 as 0x…), value is null
// for a tombstone; timestamp is text in UTC. jsondecode(m.value) reads a
// JSON value.
//
// flink with a job:
//
//	{ job_id, name, state, restarts, restarts_in_experiment (since the experiment began), start_time (UTC text),
//	  vertices = [{ name, status, records_in, records_out,
//	                backpressure, busy, backpressure_level }],
//	  backpressure = { max, busy_max, level },
//	  checkpoints = { completed, failed, in_progress, restored, latest_id, latest_time },
//	  exceptions = [{ time, name, task, message }] }
//
// The backpressure facts are null unless the step shows "backpressure"
// (ratios of time from 0 to 1, the busiest subtask's, as Flink's REST API
// gives them).
//
// flink without a job: { jobs = [<the above, one per job>], count }.
//
// lab smoke: { passed, failed, checks = [{ name, passed, detail }] }. A
// check that fails is tried again (every 5 s, for up to 2 minutes, as
// ./stream-lab smoke waits) before it is recorded as failed.
//
// lab batch: { passed, failed, jobs = [{ name, job_id, state, duration_ms,
// error, result_before, result_after }] }. Each bounded job runs through
// the SQL gateway with table.dml-sync (the INSERT returns when the job has
// finished); when the table it writes is served by ClickHouse, the step
// then waits, as ./stream-lab batch does, until the version of that table
// (max of its version column) differs from before the job ran, so the
// next step reads the new result. result_before and result_after are that
// version as text (null when unknown); a result that does not arrive
// within 2 minutes fails the job.
//
// A wait that re-runs a step has that step's result. compose, note and a
// plain wait have none.
package runner
