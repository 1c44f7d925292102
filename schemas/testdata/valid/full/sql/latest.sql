SELECT order_id, status, updated_at
FROM serving.wide FINAL
ORDER BY updated_at DESC
LIMIT 10
