SELECT order_id, order_status, payment_status,
       order_amount, updated_at
FROM analytics.dwd_order_wide FINAL
ORDER BY updated_at DESC
LIMIT 10;
