SELECT item_id, price FROM items ORDER BY item_id DESC LIMIT 10;
