-- Equal counts mean the two reads returned as many rows, not the same keys
-- or values.
SELECT
  CAST(LOCALTIMESTAMP AS TIMESTAMP(3)) AS audit_time,
  f.row_count AS paimon_fluss_count,
  i.row_count AS iceberg_count,
  f.row_count - i.row_count AS count_delta
FROM (SELECT COUNT(*) AS row_count FROM fluss_catalog.lab.dwd_order_wide) AS f
CROSS JOIN (SELECT COUNT(*) AS row_count FROM iceberg_catalog.lab.dwd_order_wide) AS i
