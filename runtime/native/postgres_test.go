package native

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// The native PostgreSQL: Debian's PostgreSQL set up from orders_pg's
// native face, with users whose passwords hold every character a shell or
// SQL would break on, reachable as the CDC user over a replication
// connection with the publication Flink CDC reads.
func TestPostgresService(t *testing.T) {
	if _, err := postgresBinDir(); err != nil {
		testproc.Missing(t, testproc.Mode(t, "native", "PostgreSQL"), err.Error())
	}
	lab, diags := schemas.NewParser().Load("../../labs/orders_pg", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	port, err := proc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	lab.Stack.Postgres.Port = port
	files, err := render.FaceFiles(lab, render.NativeFace(lab, 9092, 9123, "/w"))
	if err != nil {
		t.Fatal(err)
	}
	pw := `p|&\'"$ x`
	env := map[string]string{"POSTGRES_PASSWORD": pw, "POSTGRES_APP_USER": "app", "POSTGRES_APP_PASSWORD": pw,
		"POSTGRES_CDC_USER": "cdc user", "POSTGRES_CDC_PASSWORD": pw,
		"POSTGRES_READER_USER": "reader", "POSTGRES_READER_PASSWORD": pw}
	// The postgres user must reach the data directory (t.TempDir is 0700
	// under a 0700 parent when root).
	dir, err := os.MkdirTemp("", "labgen-native-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lay, _ := NewLayout(dir)
	svc, err := postgresService(lay, port, lab.Stack.Postgres.Database, files["sql/postgres/schema.sql"], files["sql/postgres/users.sql"], env)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := NewSupervisor(lay, []Service{svc})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if _, err := WaitUp(ctx, lay, 90*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig("host=127.0.0.1 sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Port, cfg.User, cfg.Password, cfg.Database = uint16(port), "cdc user", pw, "shop"
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("the CDC user connects with its password: %v", err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM orders").Scan(&n); err != nil {
		t.Fatalf("the CDC user reads the lab's table: %v", err)
	}
	var level string
	if err := c.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil || level != "logical" {
		t.Fatalf("wal_level %q, %v", level, err)
	}
	var pubs int
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM pg_publication_tables WHERE pubname = 'labgen_cdc'").Scan(&pubs); err != nil || pubs != 2 {
		t.Fatalf("publication labgen_cdc has %d tables, %v", pubs, err)
	}
	// A replication connection, as Flink CDC opens, that makes a slot.
	rcfg := cfg.Config.Copy()
	rcfg.RuntimeParams["replication"] = "database"
	rc, err := pgconn.ConnectConfig(ctx, rcfg)
	if err != nil {
		t.Fatalf("the CDC user opens a replication connection: %v", err)
	}
	defer rc.Close(context.Background())
	if _, err := rc.Exec(ctx, "CREATE_REPLICATION_SLOT labgen_test TEMPORARY LOGICAL pgoutput").ReadAll(); err != nil {
		t.Fatalf("the CDC user creates a pgoutput slot: %v", err)
	}
	// Wrong password: refused (scram-sha-256, not trust).
	bad := cfg.Copy()
	bad.Password = "nope"
	if c2, err := pgx.ConnectConfig(ctx, bad); err == nil {
		c2.Close(context.Background())
		t.Fatal("a wrong password is accepted")
	}
	// A second Ready on the same data directory (labgen up again) is a no-op.
	if err := svc.Ready(ctx); err != nil {
		t.Fatalf("Ready again: %v", err)
	}
	if _, err := os.Stat(lay.Data("postgres") + "/.labgen-setup-done"); err != nil {
		t.Fatal("setup marker missing")
	}
}
