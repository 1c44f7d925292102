SELECT o.order_id, o.order_status, p.payment_status,
       o.created_at, p.paid_at
FROM orders o
LEFT JOIN payments p ON o.order_id = p.order_id
ORDER BY o.updated_at DESC
LIMIT 10;
