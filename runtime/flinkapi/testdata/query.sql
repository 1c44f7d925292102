SET 'execution.runtime-mode' = 'batch';
SELECT * FROM (VALUES (1, 'books', CAST(NULL AS STRING)), (2, 'home', 'PAID')) AS t(order_id, category, payment_status);
