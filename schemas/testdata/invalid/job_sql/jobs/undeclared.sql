-- wide is declared but not read; nowhere is not declared at all.
SELECT o.order_id, o.amount, TRUE AS paid
FROM orders AS o
JOIN wide AS w ON o.order_id = w.order_id -- ERROR: Query reads an undeclared table
JOIN nowhere AS n ON n.id = o.order_id -- ERROR: Query reads an undeclared table
