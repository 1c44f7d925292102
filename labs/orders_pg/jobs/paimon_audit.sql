-- One row per order is the primary key's doing: the join's versions of an
-- order (pending, then paid) are merged into one row by the Paimon table.
SELECT
  CAST(LOCALTIMESTAMP AS TIMESTAMP(3)) AS audited_at,
  COUNT(*) AS paimon_orders,
  COUNT(DISTINCT order_id) AS distinct_orders,
  COUNT(CASE WHEN payment_status = 'PAID' THEN 1 END) AS paid_orders,
  MAX(order_id) AS max_order_id
FROM paimon_catalog.lab.dwd_order_wide
