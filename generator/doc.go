// Package generator is labgen's producer: it writes a lab's source tables
// with the value distributions the lab declares, and the follow-up events
// (payments) that come a random delay after each row with weighted
// outcomes, updating the row they belong to. It reads the lab as
// schemas.Lab (from lab.json), never HCL.
//
// The pieces, one file each:
//
//   - plan.go: Compile turns a producer of the lab into a Plan: per
//     column a value function (dist.go: constant, sequence, uniform,
//     uniform_int, normal, lognormal and exponential with a min/max
//     clamp, weighted, now, parent, outcome, outcome_map; round for
//     decimals).
//   - rng.go: every random value is a pure function of (seed, stream,
//     event number), a PCG generator seeded per value from a hash of
//     them; a stream is named after what it draws (a field, a follow-up's
//     delay or outcome), so values do not depend on batching, retries,
//     resumption, or on other fields being added.
//   - stream.go, pending.go: Stream is the deterministic sequence of a
//     producer's events in time order: parent i at Start + i/Rate, each
//     follow-up at its parent's time plus its delay, held in a 40-byte
//     heap entry until due (its values are recomputed when it fires).
//   - sample.go: Sample prints events as JSON lines (labgen produce
//     --sample).
//   - batch.go: events become multi-row statements in one transaction
//     per batch: INSERTs of parents, INSERTs of follow-ups, multi-row
//     UPDATE … JOIN (SELECT … UNION ALL …) of the parents per follow-up.
//     First sent as plain INSERTs; retried in an idempotent form. On the
//     logical clock a batch is larger and an update of a parent in the
//     same batch is applied to its row before the INSERT (write-combining:
//     the same tables, without the row's intermediate state in the binlog).
//   - run.go: Run drives the clocks. On the wall clock, events are written
//     when their time comes; on the logical clock (--rate max) as fast as
//     the database accepts, with times advancing as if at the declared
//     rate. A writer goroutine retries transient failures with backoff;
//     cancelling the context flushes what is buffered.
//   - mysql.go, restore.go: the MySQL sink: one clear error line for
//     a bad address, user, database or table; resumption after the
//     largest key already written; and taking over the follow-ups an
//     earlier run left pending.
//   - stats.go, progress.go: counts of what is committed, shown as a live
//     line on a terminal or a periodic log line.
package generator
