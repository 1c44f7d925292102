SELECT o.id
FROM orders AS o
JOIN order_items AS i ON i.id = o.id -- ERROR: Query reads an undeclared table
