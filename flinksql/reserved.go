package flinksql

import "strings"

// Reserved words that fail as bare identifiers, per engine. Not every
// reserved word: the ones a lab is likely to pick as a table, column or
// alias name. Flink's are Calcite's SQL:2003 reserved words plus the
// keywords Flink 1.20's parser adds without listing them as non-reserved
// (flink-sql-parser's Parser.tdd: "keywords" minus "nonReservedKeywords"
// and "nonReservedKeywordsToAdd"); MySQL's are MySQL 8.0's "(R)" keywords.
// ClickHouse reserves no word outside its grammar's context, so it has none.
var reserved = map[string]map[string]bool{
	"flink": words(`
		BYTES CATALOGS COMMENT DATABASES EXTENDED FUNCTIONS MODULES RAW RENAME SCALA STRING
		TABLES USE VIEWS WATERMARK WATERMARKS
		ABS ALL ALLOCATE ALTER AND ANY ARE ARRAY AS ASYMMETRIC AT AUTHORIZATION AVG BEGIN BETWEEN
		BIGINT BINARY BIT BLOB BOOLEAN BOTH BY CALL CALLED CARDINALITY CASCADED CASE CAST CEIL CEILING
		CHAR CHARACTER CHECK CLOB CLOSE COALESCE COLLATE COLLECT COLUMN COMMIT CONDITION CONNECT
		CONSTRAINT CONVERT CORR CORRESPONDING COUNT COVAR_POP COVAR_SAMP CREATE CROSS CUBE CUME_DIST
		CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER CURSOR CYCLE DATE DAY
		DEALLOCATE DEC DECIMAL DECLARE DEFAULT DELETE DENSE_RANK DEREF DESCRIBE DETERMINISTIC
		DISCONNECT DISTINCT DOUBLE DROP DYNAMIC EACH ELEMENT ELSE END ESCAPE EVERY EXCEPT EXEC EXECUTE
		EXISTS EXP EXTERNAL EXTRACT FALSE FETCH FILTER FIRST_VALUE FLOAT FLOOR FOR FOREIGN FREE FROM
		FULL FUNCTION FUSION GET GLOBAL GRANT GROUP GROUPING HAVING HOLD HOUR IDENTITY IMPORT IN
		INDICATOR INNER INOUT INSENSITIVE INSERT INT INTEGER INTERSECT INTERSECTION INTERVAL INTO IS
		JOIN LAG LANGUAGE LARGE LAST_VALUE LATERAL LEAD LEADING LEFT LIKE LIMIT LN LOCAL LOCALTIME
		LOCALTIMESTAMP LOWER MATCH MAX MEMBER MERGE METHOD MIN MINUTE MOD MODIFIES MONTH MULTISET
		NATIONAL NATURAL NCHAR NCLOB NEW NO NONE NORMALIZE NOT NTILE NULL NULLIF NUMERIC OF OLD ON
		ONLY OPEN OR ORDER OUT OUTER OVER OVERLAPS OVERLAY PARAMETER PARTITION PERCENT PERCENTILE_CONT
		PERCENTILE_DISC PERCENT_RANK PERIOD POSITION POWER PRECISION PREPARE PRIMARY PROCEDURE RANGE
		RANK READS REAL RECURSIVE REF REFERENCES REFERENCING RELEASE RESULT RETURN RETURNS REVOKE
		RIGHT ROLLBACK ROLLUP ROW ROWS ROW_NUMBER SAVEPOINT SCOPE SCROLL SEARCH SECOND SELECT
		SENSITIVE SESSION_USER SET SIMILAR SMALLINT SOME SPECIFIC SQL SQRT START STATIC STDDEV_POP
		STDDEV_SAMP SUBMULTISET SUBSTRING SUM SYMMETRIC SYSTEM SYSTEM_TIME SYSTEM_USER TABLE
		TABLESAMPLE THEN TIME TIMESTAMP TINYINT TO TRAILING TRANSLATE TRANSLATION TREAT TRIGGER TRIM
		TRUE UESCAPE UNION UNIQUE UNKNOWN UNNEST UPDATE UPPER USER USING VALUE VALUES VARCHAR
		VARYING VAR_POP VAR_SAMP WHEN WHENEVER WHERE WIDTH_BUCKET WINDOW WITH WITHIN WITHOUT YEAR`),
	"mysql": words(`
		ADD ALL ALTER AND AS ASC BETWEEN BY CALL CASE CHANGE CHECK COLUMN CONDITION CONSTRAINT
		CREATE CROSS CUME_DIST CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DATABASE
		DEFAULT DELETE DENSE_RANK DESC DESCRIBE DISTINCT DIV DROP DUAL ELSE EMPTY EXISTS EXPLAIN
		FALSE FETCH FIRST_VALUE FOR FROM GROUP GROUPING GROUPS HAVING IF IN INDEX INSERT INTERVAL
		INTO IS JOIN KEY KEYS KILL LAG LAST_VALUE LATERAL LEAD LEFT LIKE LIMIT LINES LOAD LOCK MATCH
		MOD NOT NTH_VALUE NTILE NULL OF ON OPTION OR ORDER OUTER OVER PERCENT_RANK PRIMARY RANGE
		RANK READ RECURSIVE REFERENCES RELEASE RENAME REPEAT REPLACE REQUIRE RIGHT ROW ROWS
		ROW_NUMBER SCHEMA SELECT SET SHOW SIGNAL SYSTEM TABLE THEN TO TRUE UNION UNIQUE UPDATE
		USAGE USE USING VALUES WHEN WHERE WINDOW WITH WRITE`),
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[w] = true
	}
	return out
}

// Reserved tells whether word is reserved in engine ("flink", "mysql").
func Reserved(engine, word string) bool { return reserved[engine][strings.ToUpper(word)] }

// BareReserved lists the bare words of a query that are reserved in engine
// and used as names: after AS (outside CAST), after a dot, or equal to one
// of names (the tables and columns the query can see) where no keyword
// reading fits. Function calls and type names are left alone.
func BareReserved(engine string, toks []Token, names map[string]bool) []Token {
	var out []Token
	var fn []string // the word before each open parenthesis
	for i, t := range toks {
		if t.Kind == Symbol && t.Text == "(" {
			w := ""
			if i > 0 && toks[i-1].Kind == Word {
				w = strings.ToUpper(toks[i-1].Text)
			}
			fn = append(fn, w)
			continue
		}
		if t.Kind == Symbol && t.Text == ")" && len(fn) > 0 {
			fn = fn[:len(fn)-1]
			continue
		}
		if t.Kind != Word || !Reserved(engine, t.Text) {
			continue
		}
		if i+1 < len(toks) && toks[i+1].Kind == Symbol && toks[i+1].Text == "(" {
			continue // COUNT(…), TIMESTAMP(3)
		}
		inner := ""
		if len(fn) > 0 {
			inner = fn[len(fn)-1]
		}
		var prev Token
		if i > 0 {
			prev = toks[i-1]
		}
		switch inner {
		case "CAST", "TRY_CAST", "EXTRACT", "FLOOR", "CEIL", "TIMESTAMPADD", "TIMESTAMPDIFF", "TRIM", "SUBSTRING", "POSITION", "OVERLAY":
			continue // their AS, FROM and time units are grammar
		}
		switch {
		case prev.Kind == Symbol && prev.Text == ".":
			out = append(out, t)
		case prev.Is("AS") && !t.Is("OF"): // not FOR SYSTEM_TIME AS OF
			out = append(out, t)
		case names[strings.ToLower(t.Text)] && prev.Kind != String && !prev.Is("TO") && !prev.Is("INTERVAL") &&
			!(i+1 < len(toks) && toks[i+1].Is("TO")):
			out = append(out, t)
		}
	}
	return out
}
