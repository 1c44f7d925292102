-- A streaming job that fails on its first record (integer division by
-- zero), so the restart strategy (fixed-delay, 2 attempts, 1 s) shows
-- restarts, an exception history and finally FAILED.
CREATE TABLE numbers (n INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');
CREATE TABLE failing_sink (q INT) WITH ('connector' = 'blackhole');
INSERT INTO failing_sink SELECT n / (n - n) FROM numbers;
