SELECT 'orders' AS source_table, order_status AS status, COUNT(*) AS row_count
FROM orders
GROUP BY order_status
UNION ALL
SELECT 'payments', payment_status, COUNT(*)
FROM payments
GROUP BY payment_status
ORDER BY source_table, status;
