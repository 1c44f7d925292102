-- splitter edge cases: expected splits are in splitter_edge_cases.expected
SET 'pipeline.name' = 'a;b';   -- a ';' in a string; and here: ; in a comment
;;
/* a block comment; with ; inside
   spanning lines */ SET 'x' = 'it''s; quoted';
SELECT `weird;name`, "dq;str" FROM t; SELECT 2
  FROM u;
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO a SELECT CASE WHEN x > 0 THEN 'END;' ELSE 'no' END AS c FROM s;
  -- END; inside a comment does not end the set
  INSERT INTO b SELECT CASE WHEN y THEN 1 ELSE 0 END FROM s;
END;
  select 3 -- no terminating semicolon
