-- Mutant of jobs/order_wide.sql for control status_premature: an order
-- without a payment yet is served as PAID (the wrong default), so the
-- status is right only once the payment has come.
SELECT
  o.order_id,
  o.customer_id,
  o.category,
  o.order_amount,
  o.order_status,
  COALESCE(p.payment_status, 'PAID') AS payment_status,
  p.paid_at,
  o.created_at,
  GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)) AS updated_at
FROM orders AS o
LEFT JOIN payments AS p ON o.order_id = p.order_id
