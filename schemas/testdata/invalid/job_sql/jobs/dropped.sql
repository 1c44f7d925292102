WITH big AS (SELECT order_id, amount FROM orders WHERE amount > 100)
SELECT -- ERROR: Column missing from the job's output
  b.order_id,
  b.amount
FROM big b
