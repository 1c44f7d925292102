package query

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
)

// permanentCase is one query whose error, from a real server, Permanent
// classifies: why is the reason it must give, "" when the error may pass
// (a wait keeps waiting).
type permanentCase struct {
	name  string
	ep    func(u *engineUnderTest) Endpoint
	sql   string
	limit time.Duration
	why   string
}

func reader(u *engineUnderTest) Endpoint { return u.reader }
func root(u *engineUnderTest) Endpoint   { return u.root }

// with changes an endpoint of u.
func with(ep func(*engineUnderTest) Endpoint, change func(*Endpoint)) func(*engineUnderTest) Endpoint {
	return func(u *engineUnderTest) Endpoint {
		e := ep(u)
		change(&e)
		return e
	}
}

// closedAddr is an address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestPermanent: the errors a wait stops on (the SQL is wrong, the user
// may not run it) and those it waits out (the table is not there yet,
// the server does not answer, the query was slow), as each server
// returns them through the engine.
func TestPermanent(t *testing.T) {
	refused := func(t *testing.T) func(*Endpoint) {
		addr := closedAddr(t)
		return func(e *Endpoint) { e.Addr = addr }
	}
	stranger := func(e *Endpoint) { e.User, e.Password = "nobody", "wrong" }
	noDB := func(e *Endpoint) { e.Database = "no_such_db" }
	for _, eng := range []struct {
		name  string
		start func(t *testing.T) *engineUnderTest
		cases func(t *testing.T) []permanentCase
	}{
		{MySQL, mysqlUnderTest, func(t *testing.T) []permanentCase {
			return []permanentCase{
				{"syntax", reader, "SELEC 1", 0, "a syntax error (MySQL error 1064)"},
				{"empty IN list", reader, "SELECT id FROM t WHERE id IN ()", 0, "a syntax error (MySQL error 1064)"},
				{"unknown column", reader, "SELECT nope FROM t", 0, "an unknown column (MySQL error 1054)"},
				{"unknown function", root, "SELECT nofn(1)", 0, "an unknown function (MySQL error 1305)"},
				{"unknown function as the reader", reader, "SELECT nofn(1)", 0, "access denied (MySQL error 1370)"},
				{"table not granted", reader, "SELECT * FROM mysql.user", 0, "access denied (MySQL error 1142)"},
				{"database not granted", with(reader, noDB), "SELECT 1", 0, "access denied (MySQL error 1044)"},
				{"login", with(reader, stranger), "SELECT 1", 0, "access denied (MySQL error 1045)"},
				{"no table yet", reader, "SELECT * FROM missing", 0, ""},
				{"no database yet", with(root, noDB), "SELECT 1", 0, ""},
				{"refused", with(reader, refused(t)), "SELECT 1", 0, ""},
				{"timeout", reader, "SELECT SLEEP(5)", 300 * time.Millisecond, ""},
			}
		}},
		{Postgres, postgresUnderTest, func(t *testing.T) []permanentCase {
			return []permanentCase{
				{"syntax", reader, "SELEC 1", 0, "a syntax error (PostgreSQL SQLSTATE 42601)"},
				{"empty IN list", reader, "SELECT id FROM t WHERE id IN ()", 0, "a syntax error (PostgreSQL SQLSTATE 42601)"},
				{"unknown column", reader, "SELECT nope FROM t", 0, "an unknown column (PostgreSQL SQLSTATE 42703)"},
				{"unknown function", reader, "SELECT nofn(1)", 0, "an unknown function (PostgreSQL SQLSTATE 42883)"},
				{"table not granted", reader, "SELECT * FROM pg_authid", 0, "access denied (PostgreSQL SQLSTATE 42501)"},
				{"ambiguous column", reader, "SELECT id FROM t a, t b", 0, "a syntax error or access rule violation (PostgreSQL SQLSTATE 42702)"},
				{"login", with(reader, stranger), "SELECT 1", 0, "the login failed (PostgreSQL SQLSTATE 28000)"},
				{"no table yet", reader, "SELECT * FROM missing", 0, ""},
				{"no schema yet", reader, "SELECT * FROM later.t", 0, ""},
				{"no database yet", with(reader, noDB), "SELECT 1", 0, ""},
				{"refused", with(reader, refused(t)), "SELECT 1", 0, ""},
				{"timeout", reader, "SELECT pg_sleep(5)", 300 * time.Millisecond, ""},
			}
		}},
		{ClickHouse, clickhouseUnderTest, func(t *testing.T) []permanentCase {
			return []permanentCase{
				{"syntax", reader, "SELEC 1", 0, "a syntax error (ClickHouse code 62)"},
				{"empty IN list", reader, "SELECT id FROM t WHERE id IN ()", 0, "a syntax error (ClickHouse code 62)"},
				{"unknown column", reader, "SELECT nope FROM t", 0, "an unknown identifier (ClickHouse code 47)"},
				{"unknown function", reader, "SELECT nofn(1)", 0, "an unknown function (ClickHouse code 46)"},
				{"login", with(reader, stranger), "SELECT 1", 0, "the login failed (ClickHouse code 192)"},
				{"write", reader, "SELECT * FROM t SETTINGS readonly = 0", 0, "a read-only session (ClickHouse code 164)"},
				{"no table yet", reader, "SELECT * FROM missing", 0, ""},
				{"no database yet", reader, "SELECT * FROM no_such_db.t", 0, ""},
				{"no session database yet", with(reader, noDB), "SELECT 1", 0, ""},
				{"refused", with(reader, refused(t)), "SELECT 1", 0, ""},
				{"timeout", reader, "SELECT count() FROM system.numbers", time.Second, ""},
			}
		}},
	} {
		t.Run(eng.name, func(t *testing.T) {
			u := eng.start(t)
			for _, c := range eng.cases(t) {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					e := open(t)(Open(c.ep(u)))
					_, err := e.Query(tctx(t), c.sql, Limits{Timeout: c.limit})
					if err == nil {
						t.Fatalf("%s: no error", c.sql)
					}
					why, ok := Permanent(err)
					if ok != (c.why != "") || why != c.why {
						t.Errorf("%s: Permanent(%T %q) = %q, %v; want %q", c.sql, err, err, why, ok, c.why)
					}
				})
			}
		})
	}
}

// TestPermanentClickHouseText: where clickhouse-go cannot parse what the
// server sent over HTTP, the exception is only text. ClickHouse 18.16
// writes "Code: 62, e.displayText() = DB::Exception: …", which the driver
// does not parse; its HTTP handshake meets one such error with the
// readonly user. The HTTP interface's own answers show the others.
func TestPermanentClickHouseText(t *testing.T) {
	srv := testsrv.ClickHouse(t)
	name, _ := srv.NewDatabase(t)
	ep := Endpoint{Engine: ClickHouse, Protocol: ClickHouseHTTP, Addr: strings.TrimPrefix(srv.HTTPURL(), "http://"),
		Database: name, User: testsrv.ClickHouseReadOnlyUser}
	e := open(t)(Open(ep))
	_, err := e.Query(tctx(t), "SELECT 1", Limits{})
	if err == nil || !strings.Contains(err.Error(), "Code: 164, e.displayText() = DB::Exception") {
		t.Fatalf("over HTTP: %v; want ClickHouse 18.16's text of code 164", err)
	}
	if why, ok := Permanent(err); !ok || why != "a read-only session (ClickHouse code 164)" {
		t.Errorf("Permanent(%q) = %q, %v", err, why, ok)
	}
	for _, c := range []struct{ sql, why string }{
		{"SELEC 1", "a syntax error (ClickHouse code 62)"},
		{"SELECT nofn(1)", "an unknown function (ClickHouse code 46)"},
		{"SELECT * FROM " + name + ".missing", ""},
		{"SELECT * FROM no_such_db.t", ""},
	} {
		_, err := srv.Query(tctx(t), "", "", c.sql)
		if err == nil {
			t.Fatalf("%s: no error", c.sql)
		}
		// Only the text: no *clickhouse.Exception to find.
		text := errors.New(err.Error())
		if why, ok := Permanent(text); ok != (c.why != "") || why != c.why {
			t.Errorf("Permanent(%q) = %q, %v; want %q", text, why, ok, c.why)
		}
	}
}
