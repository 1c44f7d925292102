-- Mutant of jobs/order_wide.sql for control status_stale: the payment
-- status is never taken from the payment, so every order stays PENDING
-- downstream while every row still arrives, on time.
SELECT
  o.order_id,
  o.customer_id,
  o.category,
  o.order_amount,
  o.order_status,
  'PENDING' AS payment_status,
  p.paid_at,
  o.created_at,
  GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)) AS updated_at
FROM orders AS o
LEFT JOIN payments AS p ON o.order_id = p.order_id
