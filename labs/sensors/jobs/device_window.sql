-- A window's row is emitted once, when the watermark (the newest
-- measured_at minus the lateness) passes the window's end.
SELECT
  device_id,
  window_start,
  window_end,
  COUNT(*) AS readings,
  AVG(temperature) AS avg_temperature,
  MAX(temperature) AS max_temperature
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(measured_at), INTERVAL '10' SECOND))
GROUP BY device_id, window_start, window_end
