-- Fits: a BIGINT column, a DECIMAL into a DECIMAL, a BOOLEAN literal.
SELECT
  o.order_id,
  CAST(o.amount AS DOUBLE) AS amount, -- WARNING: Output column type does not fit
  'yes' AS paid -- WARNING: Output column type does not fit
FROM orders AS o
