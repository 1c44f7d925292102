SELECT -- ERROR: Column missing from the job's output
  order_id,
  amount AS amont, -- ERROR: Output column not in the written table
  CAST(amount > 100 AS BOOLEAN), -- ERROR: Output column without a name
  TRUE AS paid
FROM orders
