SELECT device_id, window_start, window_end, readings, avg_temperature, max_temperature
FROM telemetry.device_window FINAL
ORDER BY window_end DESC, device_id
LIMIT 20;
