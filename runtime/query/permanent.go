package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// Permanent tells whether err, returned by an Engine, is one that running
// the same query again cannot change, and names it in a few words ("a
// syntax error (MySQL error 1064)"): the SQL does not parse, access is
// denied or the login fails, a function or column does not exist. A wait
// that re-runs the query stops on such an error instead of repeating it
// until its timeout.
//
// Errors that may pass are not permanent: a table or database that does
// not exist yet (a job creates it later), a server that does not answer
// yet, a timeout. Neither is an error this function does not know: a
// wait that keeps waiting on it loses time, one that stops on it could
// lose a result.
func Permanent(err error) (why string, ok bool) {
	if err == nil || errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "", false
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		if what, ok := mysqlPermanent[me.Number]; ok {
			return fmt.Sprintf("%s (MySQL error %d)", what, me.Number), true
		}
		return "", false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if what, ok := pgPermanent(pe.Code); ok {
			return fmt.Sprintf("%s (PostgreSQL SQLSTATE %s)", what, pe.Code), true
		}
		return "", false
	}
	// clickhouse-go returns an *Exception over both protocols, except where
	// it cannot parse what the server sent over HTTP: then the exception
	// is only text, as ClickHouse 18.16 writes it ("Code: 164,
	// e.displayText() = DB::Exception: …") or later ones do ("Code: 62.
	// DB::Exception: …").
	code := -1
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		code = int(ex.Code)
	} else if m := chCodeText.FindStringSubmatch(err.Error()); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	if what, ok := chPermanent[code]; ok {
		return fmt.Sprintf("%s (ClickHouse code %d)", what, code), true
	}
	return "", false
}

// chCodeText finds a ClickHouse exception's code in an error's text.
var chCodeText = regexp.MustCompile(`Code: (\d+)[.,] (?:e\.displayText\(\) = )?DB::\w*Exception`)

// mysqlPermanent are the MySQL and MariaDB error numbers of a statement
// that cannot succeed as written, or a user who may not run it. Not among
// them: 1146 (no such table) and 1049 (unknown database), which a job or
// the lab creates later.
var mysqlPermanent = map[uint16]string{
	1064: "a syntax error",                         // ER_PARSE_ERROR
	1149: "a syntax error",                         // ER_SYNTAX_ERROR
	1044: "access denied",                          // ER_DBACCESS_DENIED_ERROR
	1045: "access denied",                          // ER_ACCESS_DENIED_ERROR: the login failed
	1142: "access denied",                          // ER_TABLEACCESS_DENIED_ERROR
	1143: "access denied",                          // ER_COLUMNACCESS_DENIED_ERROR
	1227: "access denied",                          // ER_SPECIFIC_ACCESS_DENIED_ERROR
	1370: "access denied",                          // ER_PROCACCESS_DENIED_ERROR; also a reader's unknown function on MariaDB
	1698: "access denied",                          // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
	1305: "an unknown function",                    // ER_SP_DOES_NOT_EXIST
	1630: "an unknown function",                    // ER_FUNC_INEXISTENT_NAME_COLLISION
	1582: "wrong function arguments",               // ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
	1583: "wrong function arguments",               // ER_WRONG_PARAMETERS_TO_NATIVE_FCT
	1054: "an unknown column",                      // ER_BAD_FIELD_ERROR
	1052: "an ambiguous column",                    // ER_NON_UNIQ_ERROR
	1109: "an unknown table name in an expression", // ER_UNKNOWN_TABLE: a qualifier the query does not select from
	1046: "no database selected",                   // ER_NO_DB_ERROR
	1055: "a column not in GROUP BY",               // ER_WRONG_FIELD_WITH_GROUP
	1111: "a misused aggregate",                    // ER_INVALID_GROUP_FUNC_USE
	1140: "a misused aggregate",                    // ER_MIX_OF_GROUP_FUNC_AND_FIELDS
	1248: "a derived table without an alias",       // ER_DERIVED_MUST_HAVE_ALIAS
	1792: "a write in a read-only transaction",     // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
}

// pgPermanent: class 42 (syntax error or access rule violation) but for
// 42P01, a relation that does not exist yet; class 28 (the login
// failed); 25006, a write in a read-only transaction. 3D000 (no such
// database) and 3F000 (no such schema) are not: the lab creates them.
func pgPermanent(code string) (string, bool) {
	switch code {
	case "42P01":
		return "", false
	case "42601":
		return "a syntax error", true
	case "42501":
		return "access denied", true
	case "42883":
		return "an unknown function", true
	case "42703":
		return "an unknown column", true
	case "25006":
		return "a write in a read-only transaction", true
	}
	if len(code) == 5 {
		switch code[:2] {
		case "42":
			return "a syntax error or access rule violation", true
		case "28":
			return "the login failed", true
		}
	}
	return "", false
}

// chPermanent are the ClickHouse exception codes of a query that cannot
// succeed as written, or a user who may not run it. Not among them: 60
// UNKNOWN_TABLE and 81 UNKNOWN_DATABASE, which the lab creates later.
var chPermanent = map[int]string{
	62:  "a syntax error",           // SYNTAX_ERROR
	46:  "an unknown function",      // UNKNOWN_FUNCTION
	63:  "an unknown function",      // UNKNOWN_AGGREGATE_FUNCTION
	47:  "an unknown identifier",    // UNKNOWN_IDENTIFIER
	16:  "an unknown column",        // NO_SUCH_COLUMN_IN_TABLE
	352: "an ambiguous column",      // AMBIGUOUS_COLUMN_NAME
	42:  "wrong function arguments", // NUMBER_OF_ARGUMENTS_DOESNT_MATCH
	43:  "wrong function arguments", // ILLEGAL_TYPE_OF_ARGUMENT
	215: "a column not in GROUP BY", // NOT_AN_AGGREGATE
	184: "a misused aggregate",      // ILLEGAL_AGGREGATION
	115: "an unknown setting",       // UNKNOWN_SETTING
	164: "a read-only session",      // READONLY: a write, or a setting the profile forbids changing
	497: "access denied",            // ACCESS_DENIED
	516: "the login failed",         // AUTHENTICATION_FAILED
	192: "the login failed",         // UNKNOWN_USER
	193: "the login failed",         // WRONG_PASSWORD
}
