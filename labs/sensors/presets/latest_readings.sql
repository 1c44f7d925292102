SELECT reading_id, device_id, site, temperature, humidity, measured_at
FROM readings
ORDER BY reading_id DESC
LIMIT 20;
