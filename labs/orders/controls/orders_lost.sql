-- Mutant of jobs/order_wide.sql for control orders_lost: orders whose ID
-- ends in 3 are filtered out, one in ten lost silently; the rest arrive
-- on time and right.
SELECT
  o.order_id,
  o.customer_id,
  o.category,
  o.order_amount,
  o.order_status,
  COALESCE(p.payment_status, 'PENDING') AS payment_status,
  p.paid_at,
  o.created_at,
  GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)) AS updated_at
FROM orders AS o
LEFT JOIN payments AS p ON o.order_id = p.order_id
WHERE MOD(o.order_id, 10) <> 3
