package schemas

import "fmt"

// refData describes tables, producers, functions, column types and
// stores for docs/reference.md (see refText).
var refData = map[string]string{
	// Section introductions.
	"limits": "The loader bounds what it reads and evaluates, so that a mistaken or hostile lab gets an error at its " +
		"line instead of exhausting labgen's memory or stack; each bound is far above what a lab needs. `labgen validate`, " +
		"`render` and `fmt` apply them alike.\n\n" +
		"- An `.hcl` file (or a `-var-file`) is at most " + mib(MaxHCLFileBytes) + ", and a lab's `.hcl` files together at most " + mib(MaxLabBytes) + ", checked before they are parsed; read large SQL and data with `file()`.\n" +
		"- `file()` reads a regular file inside the lab directory (symbolic links are followed, but not out of it) of at most " + mib(MaxReadFileBytes) + ", and at most " + mib(MaxReadFileTotal) + " in all in one load.\n" +
		fmt.Sprintf("- An expression nests at most %d levels deep, checked on the file's tokens before it is parsed: each open bracket, brace, parenthesis, string and `${…}` counts one, and so does each operator chained in one expression since the last comma or line (`a + b + c` is three deep, as `(a + b) + c`); the labs in `labs/` nest at most 18 deep.\n", MaxNesting) +
		fmt.Sprintf("- The `for` expressions of one load go through at most %d elements in all, a nested one counting again for each element of the one around it (three nested over `range(1000)` would be 10⁹); `range()` makes at most 1024 numbers.\n", MaxForElements) +
		fmt.Sprintf("- A function makes a string of at most %s (`replace`, `join`, `format`, `jsonencode`, `sql_string`, `lower`, `upper`: nested calls of them could grow a string exponentially), and a `format()` width or precision is at most %d.\n", mib(MaxStringBytes), maxFormatWidth) +
		"- No string attribute holds a control character other than tab, line feed and carriage return (NUL, escape sequences): the text reaches the rendered SQL, `lab.json`, the runbook and configuration files.\n\n" +
		"Ctrl-C (or SIGTERM) stops `labgen validate`, `render` and `fmt` between files and blocks, with exit code 3; a `render` stopped before it writes leaves its output directory as it was.",

	"functions": "The functions an expression may call come in three kinds. " +
		"The HCL standard functions (every function below but `file`, `sql_string`, `seconds_between`, `duration` and the distributions), `sql_string` and `seconds_between` work in every expression: " +
		"those the loader evaluates, variable `validation` conditions, and the run-time expressions of experiments (those that use `step`, `experiment`, `result` or `samples`); " +
		"a variable's `default` is a literal and calls none. " +
		"`file` works only in what the loader evaluates once the variables are known: not in variable validations, nor at run time.\n\n" +
		"The distributions (`uniform`, `uniform_int`, `normal`, `lognormal`, `exponential`, `weighted`, `sequence`, `now`, `parent`, `field`, `outcome`, `outcome_map`) return a distribution, not a value: the producer draws from it for every row. " +
		"Only a `field`'s `value`, the values of a follow-up's `update`, a `follow`'s `delay` (a numeric distribution) and its `outcome` (`weighted`) accept one; anywhere else it is refused as the wrong type. " +
		"`parent`, `outcome` and `outcome_map` work only in a `follow` block's fields and `update`. " +
		"The numeric arguments of `uniform`, `uniform_int`, `normal`, `lognormal` and `exponential`, and their `{ min, max }` options, may be written as durations (`\"45s\"` is 45, `\"2d\"` 172800).\n\n" +
		"Time arithmetic: a `field`'s `value` or an `update` value may be a time (`now()`, `parent(\"c\")` or `field(\"c\")` of a timestamp or date column) plus or minus durations, as in `now() + duration(\"14d\")` or `field(\"created_at\") + duration(\"2w\") - duration(\"1h\")`. " +
		"The sum is written as the whole value (not inside `outcome_map` or a conditional); the loader refuses a time plus a number (`now() + 40`: write `duration(\"40s\")`), two times combined, a duration alone and an unknown unit.",

	"types": "A column's `type` is a logical type, written once and rendered into the dialect of every store the table has: the MySQL and PostgreSQL schemas, Flink's DDL (CDC and JDBC sources, Kafka tables, the Fluss and Iceberg lake tables) and the ClickHouse schema. " +
		"Type names are case-insensitive; `timestamp` without a precision is `timestamp(3)`, and `string` without a length is unbounded. " +
		"For example, `timestamp(3)` is `DATETIME(3)` in MySQL (so that no session time zone shifts it), `TIMESTAMP(3)` in PostgreSQL and Flink, and `DateTime64(3)` in ClickHouse; " +
		"`string(32)` is `VARCHAR(32)` in MySQL, PostgreSQL and Flink, `STRING` in a Fluss table and `String` in ClickHouse, while `string` is `TEXT` in MySQL and PostgreSQL and `STRING` in Flink; " +
		"`decimal(12,2)` is `NUMERIC(12,2)` in PostgreSQL and `Decimal(12, 2)` in ClickHouse; `tinyint` is `SMALLINT` in PostgreSQL and `Int8` in ClickHouse; `date` is `Date32` and `boolean` `Bool` in ClickHouse. " +
		"A column is `NOT NULL` unless it is `nullable`, which ClickHouse writes as `Nullable(...)`. " +
		"`decimal` needs a precision from 1 to 38 and a scale no larger than it; a `string` length is 1 to 65535; a `timestamp` precision 0 to 6. " +
		"The producer's values are checked against the type: a constant string's length, an integer's or decimal's range.",

	"stores": "A table's `store \"KIND\"` blocks say where it lives: each is a table (or topic) the rendered lab creates, with the table's columns and key, in the engine that owns it. " +
		"A table has at least one store, and one of each kind at most. " +
		"A store whose component the stack does not run is left out, with a warning unless the component is declared with `enabled = false`.\n\n" +
		"`mysql` and `postgres` are sources: the producer writes the stack's source database (MySQL when the stack runs it, else PostgreSQL), so a table a producer or follow-up writes needs that store, and Flink jobs read them through CDC (streaming) or JDBC (batch). " +
		codeList(sinkKinds(), "and") + " are sinks: a job inserts its result into every one of them that the table it writes has, and that table needs at least one. " +
		"A job's query reads a table by its plain name from its `mysql` store, else its `postgres` store, else its `kafka` store, and a lake store as " + codeList(lakeRefs("<db>", "<table>"), "or") + ". " +
		"`clickhouse` is the serving store, filled from the table's Kafka topic, which steps and presets query.",

	// Stores, one line each.
	"store.mysql":      "A table in MySQL: written by the producer, read by Flink jobs through the binlog (CDC) or, in batch, JDBC.",
	"store.postgres":   "A table in PostgreSQL's `public` schema: written by the producer in a stack without MySQL, read by Flink jobs through logical replication (CDC) or, in batch, JDBC.",
	"store.kafka":      "A Kafka topic of JSON messages keyed by the table's key: written and read by Flink jobs, ingested by ClickHouse.",
	"store.clickhouse": "A ReplacingMergeTree table in ClickHouse, the serving store, filled from the table's Kafka topic.",
	"store.fluss":      "A Fluss primary-key table tiered into the lake: written by Flink jobs, read by them through `fluss_catalog`.",
	"store.iceberg":    "An Iceberg format-version 2 upsert table: written by Flink jobs, read by them through `iceberg_catalog`.",

	// Functions.
	"fn.abs":      "`abs(num)`: the absolute value of a number.",
	"fn.can":      "`can(expression)`: `true` if the expression evaluates without an error, else `false`; as in `can(regex(\"^[a-z]+$\", var.name))`.",
	"fn.ceil":     "`ceil(num)`: the smallest whole number greater than or equal to `num`.",
	"fn.coalesce": "`coalesce(values...)`: the first argument that is not null; an error if all are.",
	"fn.concat":   "`concat(lists...)`: the lists or tuples joined into one, in order.",
	"fn.contains": "`contains(list, value)`: `true` if the list, tuple or set holds the value.",
	"fn.distinct": "`distinct(list)`: the list without its duplicates, the first of each kept in order.",
	"fn.element":  "`element(list, index)`: the element of a list or tuple at a zero-based index; an index past the end wraps around (modulo the length).",
	"fn.exponential": "`exponential(mean)` or `exponential(mean, { min = ..., max = ... })`: an exponential distribution with the given mean, a positive number or a duration, each draw clamped to the optional `min` and `max`. " +
		"For numeric columns and a `delay`, as in `delay = exponential(\"45s\", { max = \"10m\" })`.",
	"fn.file": "`file(path)`: the contents of a file as a string, `path` relative to the lab directory; an absolute path or one leading out of it (`..`, or a symbolic link to a file outside it) is refused, " +
		"and so is anything but a regular file (a FIFO, a device, a directory) and a file of more than " + mib(MaxReadFileBytes) + ". " +
		"Typical in a job's `query = file(\"jobs/name.sql\")`, whose rendered SQL names the file. Not available in variable validations or run-time expressions.",
	"fn.floor":      "`floor(num)`: the greatest whole number less than or equal to `num`.",
	"fn.format":     "`format(spec, args...)`: a string built printf-style, as in `format(\"%05d\", 42)`.",
	"fn.join":       "`join(separator, lists...)`: the strings of one or more lists joined with the separator.",
	"fn.jsondecode": "`jsondecode(string)`: the value a JSON document describes.",
	"fn.jsonencode": "`jsonencode(value)`: the value as a JSON string.",
	"fn.keys":       "`keys(map)`: the keys of a map or the attribute names of an object, in lexicographic order.",
	"fn.length":     "`length(collection)`: the number of elements of a list, tuple, set, map or object (a capture such as `{ for r in result.rows : r.genre => r.n }` is an object), or of characters of a string.",
	"fn.lognormal": "`lognormal(mu, sigma)` or `lognormal(mu, sigma, { min = ..., max = ... })`: a distribution whose logarithm is normal, each draw `exp(mu + sigma·Z)` with `sigma` not negative, clamped to the optional `min` and `max`. " +
		"For numeric columns and a `delay`, as in `lognormal(4.0, 0.7, { min = 1, max = 5000 })`.",
	"fn.lookup": "`lookup(map, key, default)`: the element of a map or object at `key`, else `default`.",
	"fn.lower":  "`lower(string)`: the string with its letters in lowercase.",
	"fn.max":    "`max(numbers...)`: the greatest of the numbers.",
	"fn.merge":  "`merge(maps...)`: the maps or objects merged into one; for a key in several, the last one's value.",
	"fn.min":    "`min(numbers...)`: the smallest of the numbers.",
	"fn.normal": "`normal(mean, stddev)` or `normal(mean, stddev, { min = ..., max = ... })`: a normal distribution, `stddev` not negative, each draw clamped to the optional `min` and `max`. " +
		"For numeric columns and a `delay`.",
	"fn.duration": "`duration(\"14d\")`: a duration, to add to or subtract from a time in a producer's value, as in `now() + duration(\"14d\")`. " +
		"Written as Go writes durations (`\"1h30m\"`, `\"45s\"`, `\"250ms\"`, a leading `-`), with `d` (24 hours) and `w` (7 days) besides: `\"2w3d12h\"`. Durations add up (`duration(\"1d\") + duration(\"12h\")`); a duration alone is not a value.",
	"fn.field": "`field(\"column\")`: the value this row's field for that column gives (the same draw), as in `field(\"created_at\") + duration(\"14d\")` for a due date two weeks after the row's time. " +
		"The field must be declared above, in the same `producer` or `follow` block; not in an `update` (use `parent(...)` there).",
	"fn.now": "`now()`: the time of the row's event: a parent row's scheduled time, a follow-up's its parent's time plus its delay (with `labgen produce --rate max`, the logical clock's). " +
		"For `timestamp` and `date` columns, in any field or `update`; `now() + duration(\"14d\")` is that time two weeks later.",
	"fn.outcome": "`outcome()`: the name of the outcome the follow-up drew, one of its `outcome`'s keys. Only in a `follow` block's fields and `update`, for `string` columns.",
	"fn.outcome_map": "`outcome_map({ OUTCOME = value, ... })`: a value chosen by the follow-up's outcome; each value is a constant (`null` writes NULL), `now()` or `parent(...)`; in a `delay`, a delay (a numeric distribution too). " +
		"Every outcome but the `never` one must be mapped. Only in a `follow` block's fields and `update`, as in `outcome_map({ PAID = \"PAID\", FAILED = \"PAYMENT_FAILED\" })`.",
	"fn.parent": "`parent(\"column\")`: the value the producer gave that column of the follow-up's parent row (the same draw), or NULL when no field fills it. " +
		"Only in a `follow` block's fields and `update`, naming a column of the parent table; a non-key column a follow-up fills with it gets an index in MySQL and PostgreSQL.",
	"fn.range":   "`range(limit)`, `range(start, limit)` or `range(start, limit, step)`: the list of numbers from `start` (default 0) up to but not including `limit`, by `step` (default 1, or -1 counting down); at most 1024 of them.",
	"fn.regex":   "`regex(pattern, string)`: the first match of a regular expression (RE2 syntax): the matched text, a list of its capture groups, or an object of its named groups; an error if nothing matches.",
	"fn.replace": "`replace(string, substring, replacement)`: the string with every occurrence of the substring (plain text, not a pattern) replaced.",
	"fn.sequence": "`sequence()`, `sequence(start)` or `sequence(start, step)`: consecutive whole numbers: the n-th row (from 0) the producer writes to the table gets `start + n·step`, `start` defaulting to 1 and `step` to 1 (positive). " +
		"A follow-up counts only the follow-ups that happen; a resumed producer carries on the numbering. For numeric and `string` columns, typically keys.",
	"fn.seconds_between": "`seconds_between(from, to)`: the seconds from one time to another (negative when `to` is earlier), to the millisecond. " +
		"Times are strings as steps capture them (`2006-01-02 15:04:05.000`, with or without fractions, or RFC 3339), both in the same time zone; query results and Kafka timestamps are UTC. " +
		"For measures from rows' own times, as in `seconds_between(step.payment.updated_at, step.paid_row.arrived_at)`.",
	"fn.sort":  "`sort(list)`: a list of strings in lexicographic order.",
	"fn.split": "`split(separator, string)`: the parts of the string between the separators, as a list.",
	"fn.sql_string": "`sql_string(value)`: the value as an SQL string literal, quotes and backslashes doubled (`it's` becomes `'it''s'`); a number or bool is quoted as its text, and null becomes an unquoted `NULL`. " +
		"For putting captured values into a step's SQL, as in `WHERE category = ${sql_string(step.latest.category)}`.",
	"fn.tonumber":  "`tonumber(value)`: the value, such as a numeric string, as a number; an error if it is none.",
	"fn.tostring":  "`tostring(value)`: the value as a string; an error if it cannot be one.",
	"fn.trimspace": "`trimspace(string)`: the string without its leading and trailing white space.",
	"fn.try":       "`try(expressions...)`: the value of the first argument that evaluates without an error; an error if none does.",
	"fn.uniform": "`uniform(min, max)`: a real number drawn uniformly between `min` and `max` (numbers or durations, `max` not below `min`). " +
		"For numeric columns and a `delay`; `round` limits its decimals.",
	"fn.uniform_int": "`uniform_int(min, max)`: a whole number drawn uniformly from `min` to `max`, both included (whole numbers, `max` not below `min`). For numeric and `string` columns and a `delay`.",
	"fn.upper":       "`upper(string)`: the string with its letters in uppercase.",
	"fn.values":      "`values(map)`: the values of a map or object, in the lexicographic order of their keys.",
	"fn.weighted": "`weighted({ VALUE = weight, ... })`: one of the keys, each chosen with probability weight/total; weights are zero or more, at least one positive. " +
		"As a field's value it writes the key, for `string` and numeric columns; as a `follow`'s `outcome` it draws the outcome, as in `weighted({ PAID = 80, FAILED = 15, NONE = 5 })`.",

	// Tables.
	"table": "`table \"NAME\"` declares one table: its columns, its key and the stores it lives in, written once and rendered into the DDL of every store. " +
		"The name is lowercase letters, digits and underscores, starting with a letter, and unique in the lab; jobs (`reads`, `writes`), producers and follow-ups refer to the table as `table.NAME`, Flink queries name it by it, and its stores take it as their default name. " +
		"A table needs at least one `column`, a `key` and at least one `store`. " +
		"Its `event_time` block and `processing_time` are the time attributes Flink jobs see when they read it.",
	"table.description": "A string saying what a row is; optional. It is rendered as an SQL comment above the table's `CREATE TABLE` in the MySQL, PostgreSQL and ClickHouse schemas, and beside the table in the runbook.",
	"table.key": "The key columns, a non-empty list of column names such as `[\"order_id\"]`, each a column of the table that is not `nullable`. " +
		"It is the `PRIMARY KEY` in MySQL, PostgreSQL and Flink (`NOT ENFORCED`; the lake tables too, an append-only Kafka table not), the `ORDER BY` of the ClickHouse table (ReplacingMergeTree keeps one row per key), and the JSON message key of a Kafka store.",
	"table.processing_time": "The name of a processing-time column (lowercase letters, digits and underscores; not a column of the table). " +
		"Every Flink job that reads the table from its `mysql`, `postgres` or `kafka` store declares it as `NAME AS PROCTIME()` in the source's DDL; it is stored nowhere. " +
		"Default: none. A store's own `processing_time` replaces it for that store.",
	"table.event_time": "The table's event time for Flink: the `timestamp` column a reading job declares a watermark on, and how late rows may come. " +
		"It becomes `WATERMARK FOR col AS col - INTERVAL ...` in the DDL of the table's `mysql`, `postgres` or `kafka` store as a job reads it (CDC, JDBC or Kafka source); a lake table read through its catalog gets none, and a store's own `event_time` block replaces it for that store. " +
		"At most one per table.",
	"table.event_time.column": "The name of a column of the table whose type is a `timestamp`; the watermark is declared on it.",
	"table.event_time.lateness": "How far the watermark trails the event times seen: a duration such as `\"5s\"` or `\"2m\"`, not negative; omitted, `\"0s\"`. " +
		"It is the watermark's interval, in the largest unit that keeps it whole: `INTERVAL '5' SECOND`, `INTERVAL '2' MINUTE`, `INTERVAL '1.500' SECOND`.",
	"table.column": "`column \"NAME\"` declares one column: its name (lowercase letters, digits and underscores, starting with a letter; unique in the table) and its logical type. " +
		"Columns keep their declared order in every rendered table. A table needs at least one.",
	"table.column.type": "The column's logical type, a string such as `\"bigint\"`, `\"decimal(12,2)\"`, `\"string(32)\"` or `\"timestamp(3)\"` (see [Column types](#column-types)), rendered in each store's dialect.",
	"table.column.nullable": "Whether the column may hold NULL: `true` or `false`, default `false`. " +
		"A key column cannot be nullable; a column that is not is `NOT NULL` in MySQL, PostgreSQL and Flink and needs a `field` in every producer or follow-up that writes the table. ClickHouse writes a nullable column's type as `Nullable(...)`.",
	"table.column.description": "A string saying what the column holds; optional. It is carried in lab.json only: the rendered SQL and runbook do not show it.",

	// Stores of a table.
	"table.store.mysql": "`store \"mysql\"` keeps the table in the stack's MySQL database: `sql/mysql/schema.sql` creates it as an InnoDB table with the table's columns and `PRIMARY KEY`, and an index on each non-key column a follow-up fills with `parent(...)`. " +
		"The producer writes it when the stack runs MySQL. " +
		"A streaming Flink job that reads the table by its plain name declares it with the `mysql-cdc` connector (a snapshot, then the binlog; a server-id range of its own); a batch job reads it through the `jdbc` connector, a snapshot taken when the job runs. " +
		"Its own `event_time` block replaces the table's for these reads.",
	"table.store.mysql.name":            "The MySQL table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name. The database is the stack's `mysql` block's `database`.",
	"table.store.mysql.processing_time": "A processing-time column for Flink's reads of this store, as the table's `processing_time`, which it replaces here. Default: the table's.",
	"table.store.mysql.append_only": "`true` when rows of the table are only ever inserted, never updated or deleted; default `false`. " +
		"A streaming job's `mysql-cdc` source then sets `'scan.read-changelog-as-append-only.enabled' = 'true'`, so Flink reads an insert-only stream, which interval joins and windows take. " +
		"A follow-up's `update` of the table's rows is refused.",
	"table.store.postgres": "`store \"postgres\"` keeps the table in the `public` schema of the stack's PostgreSQL database: `sql/postgres/schema.sql` creates it with the table's columns and `PRIMARY KEY`, `REPLICA IDENTITY FULL`, an index on each non-key column a follow-up fills with `parent(...)`, and adds it to the publication `labgen_cdc`. " +
		"The producer writes it when the stack runs PostgreSQL and not MySQL. " +
		"A streaming job reads it with the `postgres-cdc` connector (pgoutput, a replication slot per job and table); a batch job through `jdbc`, a snapshot taken when the job runs. " +
		"Its own `event_time` block replaces the table's for these reads. It has no `append_only`.",
	"table.store.postgres.name":            "The PostgreSQL table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name. The database is the stack's `postgres` block's `database`.",
	"table.store.postgres.processing_time": "A processing-time column for Flink's reads of this store, as the table's `processing_time`, which it replaces here. Default: the table's.",
	"table.store.kafka": "`store \"kafka\"` gives the table a Kafka topic, created when the stack starts with its partitions and a replication factor of 1. " +
		"A message carries the key columns as its JSON key and every column as its JSON value. " +
		"Flink jobs that write the table insert into it: as an upsert topic by default (the `upsert-kafka` connector, with the `PRIMARY KEY`: one key, many versions), or with `append_only` through the `kafka` connector. " +
		"A job that reads the table by its plain name reads the topic (consumer group `flink-JOB`) when the table has no `mysql` or `postgres` store; the table's `clickhouse` store ingests it unless it says `ingest = \"none\"`; and experiments' steps name it by its topic. " +
		"Its own `event_time` block replaces the table's for jobs' reads.",
	"table.store.kafka.topic":           "The topic's name: letters, digits, `.`, `_` and `-`. Default: the table's name.",
	"table.store.kafka.partitions":      "The topic's number of partitions, a whole number of at least 1; default 1.",
	"table.store.kafka.processing_time": "A processing-time column for Flink's reads of this topic, as the table's `processing_time`, which it replaces here. Default: the table's.",
	"table.store.kafka.append_only": "`true` when every message is a new row; default `false` (an upsert topic). " +
		"Flink then uses the `kafka` connector instead of `upsert-kafka`, with no `PRIMARY KEY` and `'key.fields'` set to the key columns; a reading job starts at the earliest offset, and a batch job reads up to the latest offset as of its start. " +
		"A batch job may read a table from Kafka by its plain name only if this is `true`.",
	"table.store.clickhouse": "`store \"clickhouse\"` keeps the table in the stack's ClickHouse database, for serving: `sql/clickhouse/schema.sql` creates it with `ENGINE = ReplacingMergeTree` (one row per key once parts merge) `ORDER BY` the key. " +
		"When it ingests from Kafka, the schema adds a Kafka-engine table `NAME_queue` that reads the topic as `JSONEachRow` (consumer group `clickhouse-NAME`) and a materialized view `NAME_mv` that moves its rows into the table.",
	"table.store.clickhouse.name": "The ClickHouse table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name. The database is the stack's `clickhouse` block's `database`.",
	"table.store.clickhouse.version": "The column ReplacingMergeTree keeps the highest value of per key, rendered as `ENGINE = ReplacingMergeTree(col)`: a column of the table of an integer, `date` or `timestamp` type. " +
		"Default: none, and the last row inserted wins. With it, `labgen batch` and `stream-lab batch` report a bounded job's result as `max(col)`.",
	"table.store.clickhouse.arrival": "A column the ClickHouse table adds, not a column of the table: `NAME DateTime64(3) DEFAULT now64(3)`, which the materialized view leaves out, so that each row keeps the time ClickHouse inserted it (to the millisecond, in ClickHouse's clock). " +
		"Experiments read a row's lag from it and the row's own timestamps, as `arrival - updated_at`, rather than from how long a wait polled. Default: none, and the table has only its columns.",
	"table.store.clickhouse.ingest": "Where ClickHouse takes the table's rows from: `\"kafka\"`, the table's `kafka` store, which it then needs, or `\"none\"`, and nothing in the rendered lab fills it. " +
		"Default: `\"kafka\"` when the table has a `kafka` store in this stack, else `\"none\"`.",
	"table.store.fluss": "`store \"fluss\"` keeps the table in Fluss, in the stack's `fluss` database, as a primary-key table tiered into the lake (`'table.datalake.enabled' = 'true'`, `'table.datalake.freshness'` from the stack's `fluss` block's `freshness`); Fluss knows no `VARCHAR(n)`, so its strings are `STRING`. " +
		"`sql/flink/lake_tables.sql` creates it once, before the jobs, through the `fluss_catalog` catalog. " +
		"Flink jobs that write the table insert into it; jobs read it as `fluss_catalog.<db>.<table>` (`<table>$lake` for its lake part alone).",
	"table.store.fluss.name": "The Fluss table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name.",
	"table.store.iceberg": "`store \"iceberg\"` keeps the table in Iceberg, in the stack's `iceberg` database of the `iceberg_catalog` catalog (a hadoop catalog on the shared warehouse volume), as a format-version 2 table with `'write.upsert.enabled' = 'true'` and the table's primary key, created once by `sql/flink/lake_tables.sql`. " +
		"Flink jobs that write the table insert into it, committing on checkpoints; jobs read it as `iceberg_catalog.<db>.<table>`.",
	"table.store.iceberg.name": "The Iceberg table's name: lowercase letters, digits and underscores, starting with a letter. Default: the table's name.",
	"table.store.event_time": "An `event_time` block in a `mysql`, `postgres` or `kafka` store: the event time Flink jobs see when they read this store, replacing the table's `event_time` (its column and lateness) there. " +
		"The table's `processing_time` still applies unless the store sets its own. At most one per store.",
	"table.store.event_time.column":   "The name of a `timestamp` column of the table; the store's watermark is declared on it.",
	"table.store.event_time.lateness": "As the table's: how far the watermark trails the event times seen, a duration, not negative; omitted, 0 s.",

	// Producers.
	"producer": "`producer \"NAME\"` writes rows of one table continuously: parent rows at `rate` per second, evenly spaced, each column's value drawn from its `field`; and for each parent row, the follow-ups its `follow` blocks declare, such as a payment after an order. " +
		"It writes the stack's source database (MySQL, else PostgreSQL); `labgen produce` runs it. " +
		"Every draw depends only on the seed, the declarations and the row's number, so the rows are the same from run to run, and a resumed run continues after the rows already written. " +
		"The name is lowercase letters, digits and underscores, starting with a letter, and unique.",
	"producer.table": "The table the producer writes, as a reference `table.NAME`. It must have a store in the stack's source database (`mysql`, or `postgres` in a stack without MySQL), and every column of it that is not nullable needs a `field`.",
	"producer.rate":  "Parent rows per second, a positive number. `labgen produce --rate N` overrides it for every producer, and `--rate max` writes as fast as the database takes rows while their times advance at this rate.",
	"producer.field": "`field \"COLUMN\"` says how the producer fills one column of the table it writes (in a `follow` block, of the follow-up's table): the column must be the table's, and has one field at most. " +
		"A column without a field is not written, and must be `nullable`.",
	"producer.field.value": "A constant (a string, a number, `true` or `false`, or `null` for a nullable column) written in every row, or a distribution drawn for each row, such as `sequence(1)`, `uniform_int(1, 5000)`, `weighted({ ... })`, `now()` or `field(\"created_at\") + duration(\"14d\")` (a time plus or minus durations). " +
		"It must suit the column's type (numbers for numeric columns, `true`/`false` for `boolean`, `now()` for `timestamp` and `date`), and a constant must fit its length or range; the loader warns when 1% or more of a distribution's draws fall outside an integer or decimal column's range, as MySQL would refuse those rows and stop the producer.",
	"producer.field.round": "The number of decimals a drawn number is rounded to (half away from zero): a whole number of at least 0, for numeric columns only; the producer refuses more than 30. " +
		"Default: none, full precision. Only values that are not whole numbers change: those of `uniform`, `normal`, `lognormal`, `exponential` or a fractional constant.",
	"producer.follow": "`follow \"NAME\"` declares an event that follows each parent row, such as a payment after an order. " +
		"For each parent row the producer draws an `outcome`; unless it is the `never` one, it writes one row to the follow-up's `table` a `delay` after the parent's time, with values from its `field` blocks, and applies its `update` to the parent row then. " +
		"A follow-up's fields and update may use `parent(...)`, `outcome()` and `outcome_map(...)`. " +
		"It always writes its row: an event that only updates the parent (a return setting `returned_at`) is a follow-up with a table of its own that records it, plus `update` (see [patterns.md](patterns.md#follow-up-events-are-rows)). " +
		"The name is lowercase letters, digits and underscores, starting with a letter, and unique in the producer.",
	"producer.follow.table": "The table the follow-up rows go to, as `table.NAME`. Like the producer's, it needs a store in the stack's source database, and its columns that are not nullable need a `field` here.",
	"producer.follow.delay": "How long after its parent the follow-up happens, in seconds: a number, a duration such as `\"45s\"`, or a numeric distribution (`uniform`, `uniform_int`, `normal`, `lognormal`, `exponential`) whose parameters are seconds or durations, drawn once per parent. " +
		"A draw below 0 means at once. A constant delay or a distribution's `min` must not be negative, and the loader warns when 1% or more of the draws fall below 0. " +
		"`outcome_map({ OUTCOME = delay, ... })` chooses the delay by the drawn outcome, each value a delay as above, as in `delay = outcome_map({ PAID = exponential(\"15s\"), FAILED = \"5s\" })`; every outcome but the `never` one must be mapped.",
	"producer.follow.outcome": "A `weighted({ OUTCOME = weight, ... })` choice, drawn once per parent: what happens, as in `weighted({ PAID = 80, FAILED = 15, NONE = 5 })`. `outcome()` and `outcome_map(...)` read the drawn name.",
	"producer.follow.never":   "The outcome that means no follow-up, naming one of the `outcome`'s keys: for a parent that draws it, no row is written and nothing updated, and `outcome_map` need not map it. Default: none; every outcome writes a follow-up.",
	"producer.follow.field": "`field \"COLUMN\"` of a follow-up: as a producer's `field`, for a column of the follow-up's table. " +
		"Its `value` may also use `parent(...)`, `outcome()` and `outcome_map(...)`, and `now()` is the follow-up's time: its parent's plus the delay.",
	"producer.follow.field.value": "As a producer field's `value`, with `parent(\"column\")`, `outcome()` and `outcome_map({ ... })` available too.",
	"producer.follow.field.round": "As a producer field's `round`: the decimals a drawn number is rounded to, a whole number of at least 0; default none.",
	"producer.follow.update": "`update { COLUMN = VALUE ... }` changes the parent row when the follow-up happens: each attribute names a column of the parent table that is not a key column, and its value is written as a field's is, with `parent(...)`, `outcome()`, `outcome_map(...)` and `now()` (the follow-up's time) available, " +
		"as in `order_status = outcome_map({ PAID = \"PAID\", FAILED = \"PAYMENT_FAILED\" })`. " +
		"The producer sends an `UPDATE` of the parent row by its key at the follow-up's time; with `--rate max`, an update of a parent row in the same transaction is folded into its insert. " +
		"At most one per `follow`, and none when the parent table's source store is `append_only`.",
}
