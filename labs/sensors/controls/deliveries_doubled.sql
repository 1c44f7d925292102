-- Mutant of jobs/deliveries.sql for control deliveries_doubled: every
-- match is emitted twice (the join UNION ALL itself), so ClickHouse
-- receives each delivery twice: what "met its reading once" rules out,
-- and what FINAL would hide.
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
UNION ALL
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
