SELECT o.order_id, o.category, o.order_amount, o.created_at
FROM orders o
LEFT JOIN payments p ON o.order_id = p.order_id
WHERE p.order_id IS NULL
ORDER BY o.created_at DESC
LIMIT 10;
