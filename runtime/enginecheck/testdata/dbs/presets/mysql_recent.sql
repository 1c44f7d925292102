-- The newest readings.
SELECT device_id, temperature
FROM readings
ORDER BY measured_at DESC
LIMIT 10
