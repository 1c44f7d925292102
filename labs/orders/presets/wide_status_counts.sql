SELECT payment_status, count() AS orders, sum(order_amount) AS amount
FROM analytics.dwd_order_wide FINAL
GROUP BY payment_status
ORDER BY payment_status;
