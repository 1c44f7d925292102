SELECT site, hot_readings, hottest, last_hot_at
FROM telemetry.site_heat FINAL
ORDER BY hot_readings DESC, site;
