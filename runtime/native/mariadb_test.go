package native

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// The native MySQL: MariaDB set up from the seed lab's native face, with
// users whose passwords hold every character a shell or sed would break
// on, reachable as the CDC user with the binlog Flink CDC reads.
func TestMariaDBService(t *testing.T) {
	if _, err := lookSbin("mariadbd"); err != nil {
		testproc.Missing(t, testproc.Mode(t, "native", "MariaDB"), err.Error())
	}
	lab := seedLab(t)
	port, err := proc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	lab.Stack.MySQL.Port = port
	files, err := render.FaceFiles(lab, render.NativeFace(lab, 9092, 9123, "/w"))
	if err != nil {
		t.Fatal(err)
	}
	pw := `p|&\'"$ x`
	env := map[string]string{"MYSQL_APP_USER": "app", "MYSQL_APP_PASSWORD": pw, "MYSQL_CDC_USER": "cdc",
		"MYSQL_CDC_PASSWORD": pw, "MYSQL_READER_USER": "reader", "MYSQL_READER_PASSWORD": pw}
	lay, _ := NewLayout(t.TempDir())
	svc, err := mariadbService(lay, port, files["sql/mysql/schema.sql"], files["sql/mysql/users.sql"], env)
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
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "cdc", pw, "tcp", "127.0.0.1:"+strconv.Itoa(port), "shop"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders").Scan(&n); err != nil {
		t.Fatalf("the CDC user reads the lab's table: %v", err)
	}
	var name, value string
	if err := db.QueryRowContext(ctx, "SHOW VARIABLES LIKE 'binlog_format'").Scan(&name, &value); err != nil || value != "ROW" {
		t.Fatalf("binlog_format %q, %v", value, err)
	}
	rows, err := db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		t.Fatalf("the CDC user sees the binlog position (REPLICATION CLIENT): %v", err)
	}
	rows.Close()
	// A second Ready on the same data directory (labgen up again) is a no-op.
	if err := svc.Ready(ctx); err != nil {
		t.Fatalf("Ready again: %v", err)
	}
	if _, err := os.Stat(lay.Data("mysql") + "/.labgen-setup-done"); err != nil {
		t.Fatal("setup marker missing")
	}
}

func seedLab(t *testing.T) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return lab
}
