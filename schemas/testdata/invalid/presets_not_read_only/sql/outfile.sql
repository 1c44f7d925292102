SELECT *
FROM orders
INTO OUTFILE '/tmp/orders.csv'
