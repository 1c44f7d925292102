SELECT id, status
FROM orders;
DROP TABLE orders; -- ERROR: More than one statement in a job query
