-- Mutant of jobs/device_window.sql for control windows_doubled: every
-- window is emitted twice (the query UNION ALL itself), so a closed
-- window's key gets a second version with the same values: what "written
-- once" rules out, and what FINAL would hide.
SELECT
  device_id,
  window_start,
  window_end,
  COUNT(*) AS readings,
  AVG(temperature) AS avg_temperature,
  MAX(temperature) AS max_temperature
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(measured_at), INTERVAL '10' SECOND))
GROUP BY device_id, window_start, window_end
UNION ALL
SELECT
  device_id,
  window_start,
  window_end,
  COUNT(*) AS readings,
  AVG(temperature) AS avg_temperature,
  MAX(temperature) AS max_temperature
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(measured_at), INTERVAL '10' SECOND))
GROUP BY device_id, window_start, window_end
