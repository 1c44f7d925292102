-- labgen: deliberately broken: a plain 'kafka' (append-only) sink fed by a
-- regular LEFT JOIN of two CDC tables, which produces updates and deletes.
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY TABLE o (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='mysql-cdc','hostname'='mysql','username'='u','password'='p','database-name'='d','table-name'='o','server-id'='5401-5404');

CREATE TEMPORARY TABLE p (id BIGINT, oid BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='mysql-cdc','hostname'='mysql','username'='u','password'='p','database-name'='d','table-name'='p','server-id'='5405-5408');

CREATE TEMPORARY TABLE k (id BIGINT, v STRING, s STRING) WITH ('connector'='kafka','topic'='t','properties.bootstrap.servers'='kafka:19092','format'='json');

INSERT INTO k SELECT o.id, o.v, p.s FROM o LEFT JOIN p ON o.id = p.oid;
