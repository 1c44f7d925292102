-- An event-time interval join: a receipt meets its reading only if it came
-- within ten seconds of the measurement. Each match is emitted once, and the
-- watermarks let Flink forget readings whose ten seconds have passed.
-- A sink takes one event-time column: received_at becomes a plain timestamp.
-- Both sides start at the end of the binlog, not with a snapshot of the
-- tables: while two CDC sources read their snapshots they reach the join at
-- different speeds, the watermark follows the one ahead, and rows of the
-- other that arrive behind it are dropped as late (a run that started with
-- snapshots delivered only a third of the older readings).
SELECT
  r.reading_id,
  r.device_id,
  r.measured_at,
  CAST(c.received_at AS TIMESTAMP(3)) AS received_at,
  TIMESTAMPDIFF(SECOND, r.measured_at, c.received_at) AS delay_s
FROM readings /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */ AS r
JOIN receipts /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */ AS c
  ON c.reading_id = r.reading_id
  AND c.received_at BETWEEN r.measured_at AND r.measured_at + INTERVAL '10' SECOND
