package native

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	lay, _ := NewLayout(t.TempDir())
	ctx, svc, port := startMariaDB(t, lay)
	rootNeedsPassword(t, ctx, lay, port)
	if _, err := os.Stat(filepath.Join(lay.Data("mysql"), ".root.sql")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the setup's SQL with root's password is still there: %v", err)
	}
	db := openMySQL(t, "cdc", testPassword, port, "shop")
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

// A data directory set up before root had a password (root without one
// on 127.0.0.1) still starts: root gets its password then, and the
// lab's users are made with it.
func TestMariaDBRootWithoutPassword(t *testing.T) {
	lay, _ := NewLayout(t.TempDir())
	if _, err := lookSbin("mariadbd"); err != nil {
		testproc.Missing(t, testproc.Mode(t, "native", "MariaDB"), err.Error())
	}
	installDB, err := lookSbin("mariadb-install-db")
	if err != nil {
		t.Fatal(err)
	}
	// What Setup did before: root@127.0.0.1 without a password.
	data := lay.Data("mysql")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--no-defaults", "--datadir=" + filepath.Join(data, "data"), "--tmpdir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}, mariadbUser()...)
	if out, err := exec.Command(installDB, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(data, ".labgen-setup-done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, _, port := startMariaDB(t, lay)
	rootNeedsPassword(t, ctx, lay, port)
	db := openMySQL(t, "cdc", testPassword, port, "shop")
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders").Scan(&n); err != nil {
		t.Fatalf("the lab's users were not made with root's password: %v", err)
	}
}

// testPassword is the lab users' password: every character a shell or sed
// would break on.
const testPassword = `p|&\'"$ x`

// startMariaDB runs the native MySQL of the seed lab under a supervisor
// until the test ends and waits until it is up.
func startMariaDB(t *testing.T, lay Layout) (context.Context, Service, int) {
	t.Helper()
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
	pw := testPassword
	env := map[string]string{"MYSQL_APP_USER": "app", "MYSQL_APP_PASSWORD": pw, "MYSQL_CDC_USER": "cdc",
		"MYSQL_CDC_PASSWORD": pw, "MYSQL_READER_USER": "reader", "MYSQL_READER_PASSWORD": pw}
	svc, err := mariadbService(lay, port, files["sql/mysql/schema.sql"], files["sql/mysql/users.sql"], env)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := NewSupervisor(lay, []Service{svc})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if _, err := WaitUp(ctx, lay, 90*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	return ctx, svc, port
}

// rootNeedsPassword: root is refused without a password, on TCP and on
// the socket, and let in with the one of its option file (mode 0600),
// which the mariadb client reads as it is.
func rootNeedsPassword(t *testing.T, ctx context.Context, lay Layout, port int) {
	t.Helper()
	file := lay.MySQLRoot()
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", file, st.Mode().Perm())
	}
	if dst, err := os.Stat(filepath.Dir(file)); err != nil || dst.Mode().Perm() != 0o700 {
		t.Errorf("the directory of %s: %v %v, want mode 0700", file, dst.Mode(), err)
	}
	pw, err := rootPassword(file)
	if err != nil || len(pw) < 32 {
		t.Fatalf("root's password %q: %v", pw, err)
	}
	if err := openMySQL(t, "root", "", port, "").PingContext(ctx); !accessDenied(err) {
		t.Errorf("root without a password: %v, want access denied", err)
	}
	if err := openMySQL(t, "root", "wrong", port, "").PingContext(ctx); !accessDenied(err) {
		t.Errorf("root with a wrong password: %v, want access denied", err)
	}
	db := openMySQL(t, "root", pw, port, "")
	var hosts string
	if err := db.QueryRowContext(ctx, "SELECT GROUP_CONCAT(Host ORDER BY Host) FROM mysql.user WHERE User = 'root'").Scan(&hosts); err != nil {
		t.Fatalf("root with its password: %v", err)
	}
	if hosts != "127.0.0.1,::1,localhost" {
		t.Errorf("root's accounts: %s", hosts)
	}
	// The binlog, which the CDC user reads, does not hold it.
	var logs []string
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var size any
		if err := rows.Scan(&name, &size); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, name)
	}
	rows.Close()
	for _, l := range logs {
		rows, err := db.QueryContext(ctx, "SHOW BINLOG EVENTS IN '"+l+"'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name, typ, info string
			var pos, server, end int64
			if err := rows.Scan(&name, &pos, &typ, &server, &end, &info); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(info, pw) {
				t.Errorf("the binlog %s holds root's password: %s", l, info)
			}
		}
		rows.Close()
	}
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Logf("no mariadb client to read %s with: %v", file, err)
		return
	}
	base := []string{"--protocol=tcp", "-h", "127.0.0.1", "-P", strconv.Itoa(port), "-N", "-e", "SELECT CURRENT_USER()"}
	out, err := exec.CommandContext(ctx, client, append([]string{"--defaults-extra-file=" + file}, base...)...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "root@127.0.0.1" {
		t.Errorf("mariadb --defaults-extra-file: %v %s", err, out)
	}
	out, err = exec.CommandContext(ctx, client, append([]string{"--no-defaults", "-u", "root"}, base...)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Access denied") {
		t.Errorf("mariadb as root without the file: %v %s", err, out)
	}
}

func openMySQL(t *testing.T, user, pw string, port int, database string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, pw, "tcp", "127.0.0.1:"+strconv.Itoa(port), database
	cfg.Logger = &mysql.NopLogger{}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func seedLab(t *testing.T) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return lab
}

// Root's option file is made once, only the user's, and never read
// through a link.
func TestRootPasswordFile(t *testing.T) {
	lay, _ := NewLayout(t.TempDir())
	file := lay.MySQLRoot()
	pw, err := rootPassword(file)
	if err != nil || len(pw) != 36 {
		t.Fatalf("%q %v", pw, err)
	}
	if again, err := rootPassword(file); err != nil || again != pw {
		t.Errorf("read again: %q %v, want the same password", again, err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rootPassword(file); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("a file opened up to others stays %v", st.Mode().Perm())
	}
	link := filepath.Join(t.TempDir(), "link.cnf")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, err := rootPassword(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link: %v", err)
	}
}
