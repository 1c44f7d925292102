-- The wide row's updated_at is the later of both sides, so that the paid
-- version of an order outranks the pending one downstream.
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
