-- payments joined to orders
SELECT o.order_id, COALESCE(p.status, 'PENDING') AS status, o.updated_at
FROM orders AS o
LEFT JOIN payments AS p ON o.order_id = p.order_id
