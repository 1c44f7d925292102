// Package query runs one read-only SQL statement on MySQL or ClickHouse and
// returns its result as plain data. The console and the runtime's query
// steps share it.
//
//	eng, err := query.Open(ep)                            // an Endpoint, as runtime/labdir resolves it
//	defer eng.Close()
//	res, err := eng.Query(ctx, "SELECT …", query.Limits{}) // zero fields take DefaultLimits
//	res.Columns   // name and database type of each column
//	res.Rows      // [][]any of string, int64, float64, json.Number, bool, nil, []any, map[string]any
//	res.Truncated // more rows existed than the limits let through
//
// # Values
//
// Every column type is scanned generically and converted to a value that
// encoding/json writes faithfully:
//
//   - integers are int64; an unsigned value above math.MaxInt64 (and
//     ClickHouse's Int128/256) is a json.Number;
//   - floating point is float64 (FLOAT/Float32 keep their shortest decimal
//     form); NaN and ±Inf, which JSON cannot hold, are the strings "NaN",
//     "+Inf" and "-Inf";
//   - decimals are json.Number with the column's scale (12.50), never a
//     float;
//   - dates and times are text: "2006-01-02" for a date, "2006-01-02
//     15:04:05[.fraction]" for a date-time, in the server's (or the
//     column's) time zone as the server returned it;
//   - text is a string; bytes that are not valid UTF-8 are "0x" + hex;
//   - MySQL BIT is an int64; ClickHouse UUID, IP, Enum are strings,
//     Array and Tuple are []any, Map is map[string]any;
//   - SQL NULL is nil.
//
// # Limits
//
// Limits bound a query: MaxRows and MaxBytes (the size of the rows as JSON)
// stop reading and set Result.Truncated; the query is then cancelled on the
// server rather than read to the end. Timeout cancels the query from the
// client and, where the server lets the session set it, from the server too
// (MariaDB max_statement_time, MySQL max_execution_time, ClickHouse
// max_execution_time). A query stopped by its timeout returns an error that
// wraps ErrTimeout.
//
// # Errors that do not pass
//
// Permanent tells an error that running the same query again cannot
// change (a syntax error, access denied, an unknown function or column;
// each engine's own codes) from one that may pass (a table not created
// yet, a server not up yet, a timeout): a wait that re-runs a query stops
// on the first kind.
//
// # Read-only sessions
//
// The engines never write, whatever SQL they are given; callers still check
// statements with package sqlread first (two locks):
//
//   - MySQL: every connection runs SET SESSION TRANSACTION READ ONLY when
//     it opens, and every query runs inside START TRANSACTION READ ONLY,
//     rolled back afterwards. Multi-statement mode and LOCAL INFILE are
//     turned off whatever the DSN says. Use the lab's read-only user
//     (MYSQL_READER_USER) as well.
//   - ClickHouse: every query carries the setting readonly=1, unless the
//     user's profile already has readonly (the server then refuses any
//     setting change, so none is sent). On first use the engine asks the
//     server which readonly level its queries run with and refuses to run
//     anything if it is 0.
//
// Engines are safe for concurrent use and connect lazily: opening does not
// need the server to be up yet.
package query
