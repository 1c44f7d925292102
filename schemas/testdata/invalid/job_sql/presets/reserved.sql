SELECT order_id, amount AS rank -- WARNING: Reserved word as a name
FROM orders
