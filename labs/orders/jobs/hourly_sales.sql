-- A plain read of the Fluss table is the union read (Fluss + Paimon).
SELECT
  FLOOR(created_at TO HOUR) AS hour_bucket,
  category,
  COUNT(*) AS order_count,
  CAST(SUM(CASE WHEN payment_status = 'PAID' THEN 1 ELSE 0 END) AS BIGINT) AS paid_order_count,
  CAST(SUM(order_amount) AS DECIMAL(18, 2)) AS gmv,
  CAST(SUM(CASE WHEN payment_status = 'PAID' THEN order_amount ELSE 0 END) AS DECIMAL(18, 2)) AS paid_gmv,
  CAST(LOCALTIMESTAMP AS TIMESTAMP(3)) AS computed_at
FROM fluss_catalog.lab.dwd_order_wide
GROUP BY FLOOR(created_at TO HOUR), category
