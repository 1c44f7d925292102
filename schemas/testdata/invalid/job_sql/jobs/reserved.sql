SELECT
  order_id,
  amount,
  views > 0 AS paid -- WARNING: Reserved word as a name
FROM orders
