SELECT audit_time, paimon_fluss_count, iceberg_count, count_delta
FROM analytics.lake_consistency_audit FINAL
ORDER BY audit_time DESC
LIMIT 1;
