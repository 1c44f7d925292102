package native

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/runtime/flinkapi"
)

// MariaDBStandIn is what the record and the runbook say of the native MySQL.
const MariaDBStandIn = "MariaDB from Debian's package stands in for MySQL 8 (no MySQL 8 server can be had without Docker); Flink CDC reads its binlog by file and position"

// mariadbService is the native face of the compose service "mysql":
// mariadbd from Debian's package with the binlog the CDC sources read
// (row-based, full images, server-id 1, UTC), as the compose command line
// sets for MySQL. schema and users are the rendered sql/mysql files of the
// native face; env is .env, whose values fill the users' ${NAME}s.
func mariadbService(lay Layout, port int, schema, users []byte, env map[string]string) (Service, error) {
	mariadbd, err := lookSbin("mariadbd")
	if err != nil {
		return Service{}, err
	}
	installDB, err := lookSbin("mariadb-install-db")
	if err != nil {
		return Service{}, err
	}
	data := lay.Data("mysql")
	datadir := filepath.Join(data, "data")
	socket := filepath.Join(data, "mysqld.sock")
	if len(socket) > 100 { // sun_path holds 108 bytes
		h := sha256.Sum256([]byte(data))
		socket = filepath.Join(os.TempDir(), "labgen-mysql-"+hex.EncodeToString(h[:6])+".sock")
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := mariadbArgs(mariadbd, data, datadir, socket, port)
	args = append(args, mariadbUser()...)
	root := &mariadbRoot{addr: addr, file: lay.MySQLRoot()}
	return Service{
		Name: "mysql",
		Argv: args,
		Setup: func(ctx context.Context) error {
			// Normal root authentication (a password over TCP on
			// 127.0.0.1, not unix_socket auth tied to the OS user); root
			// gets its password before the server first listens, from a
			// file only the user can read, removed after.
			pw, err := root.password()
			if err != nil {
				return err
			}
			script := filepath.Join(data, ".root.sql")
			os.Remove(script) // left by a setup that was stopped
			if err := writePrivate(script, []byte(secureRoot(pw))); err != nil {
				return err
			}
			defer os.Remove(script)
			install := []string{"--no-defaults", "--datadir=" + datadir, "--tmpdir=" + data,
				"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve",
				"--extra-file=" + script}
			install = append(install, mariadbUser()...)
			cmd := exec.CommandContext(ctx, installDB, install...)
			cmd.WaitDelay = 5 * time.Second
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
			}
			return nil
		},
		Health: Probe{Func: func(ctx context.Context) error {
			db, err := root.db(ctx, false)
			if err != nil {
				return err
			}
			return db.Close()
		}, Start: time.Minute},
		// The schema and the lab's users, as the MySQL image's init scripts
		// create them; both are idempotent (IF NOT EXISTS).
		Ready: func(ctx context.Context) error {
			db, err := root.db(ctx, true)
			if err != nil {
				return err
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, string(schema)); err != nil {
				return fmt.Errorf("sql/mysql/schema.sql: %w", err)
			}
			filled, missing := flinkapi.Substitute(string(users), sqlQuoted(env))
			if len(missing) > 0 {
				return fmt.Errorf("sql/mysql/users.sql uses %s, which .env does not set", strings.Join(missing, ", "))
			}
			if _, err := db.ExecContext(ctx, filled); err != nil {
				return fmt.Errorf("sql/mysql/users.sql: %w", err)
			}
			return nil
		},
		Memory:  "≈200m",
		Why:     "InnoDB buffer pool 64 MB",
		StandIn: MariaDBStandIn,
	}, nil
}

// mariadbArgs is mariadbd's command line: the binlog the CDC sources read
// and what compose's MySQL command line sets.
func mariadbArgs(mariadbd, data, datadir, socket string, port int) []string {
	return []string{
		mariadbd,
		// --no-defaults keeps the machine's /etc/mysql out of the lab.
		"--no-defaults",
		"--datadir=" + datadir,
		"--tmpdir=" + data,
		"--socket=" + socket,
		"--pid-file=" + filepath.Join(data, "mysqld.pid"),
		"--bind-address=127.0.0.1",
		"--port=" + strconv.Itoa(port),
		"--skip-name-resolve",
		// What compose's MySQL command line sets; MariaDB has no GTID mode
		// switch (its GTIDs are always on), so that flag has no twin here.
		"--server-id=1",
		"--log-bin=" + filepath.Join(datadir, "mysql-bin"),
		"--binlog-format=ROW",
		"--binlog-row-image=FULL",
		"--default-time-zone=+00:00",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_bin",
		"--innodb-buffer-pool-size=64M",
		"--innodb-log-file-size=16M",
		// io_uring/libaio may be blocked in containers and CI sandboxes.
		"--innodb-use-native-aio=0",
	}
}

// mariadbRoot is the native MySQL's root account: a password of its own
// (not .env's, which is the compose stack's), read from the option file
// at file on first use.
type mariadbRoot struct {
	addr, file string
	mu         sync.Mutex
	pw         string
}

func (r *mariadbRoot) password() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pw == "" {
		pw, err := rootPassword(r.file)
		if err != nil {
			return "", err
		}
		r.pw = pw
	}
	return r.pw, nil
}

// open connects as root with password pw and pings.
func (r *mariadbRoot) open(ctx context.Context, pw string, multi bool) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", pw, "tcp", r.addr
	cfg.Timeout = 2 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	cfg.MultiStatements = multi
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// db connects as root with its password. A data directory made before
// root had one lets root in without it: root gets its password then,
// once.
func (r *mariadbRoot) db(ctx context.Context, multi bool) (*sql.DB, error) {
	pw, err := r.password()
	if err != nil {
		return nil, err
	}
	db, err := r.open(ctx, pw, multi)
	if !accessDenied(err) {
		return db, err
	}
	old, oerr := r.open(ctx, "", true)
	if accessDenied(oerr) {
		return nil, fmt.Errorf("root@127.0.0.1 refuses the password in %s: the file is not this data directory's (labgen down --volumes starts the stack afresh, without its data)", r.file)
	}
	if oerr != nil {
		return nil, oerr
	}
	defer old.Close()
	if _, err := old.ExecContext(ctx, secureRoot(pw)); err != nil {
		return nil, fmt.Errorf("giving root its password: %w", err)
	}
	return r.open(ctx, pw, multi)
}

// secureRoot is the SQL that gives root its password pw: the accounts
// root logs in as (localhost, 127.0.0.1, ::1) get it and any other root
// account goes, as mysql_secure_installation does. None of it reaches the
// binlog, which the lab's CDC user reads.
func secureRoot(pw string) string {
	id := "IDENTIFIED BY '" + sqlQuote.Replace(pw) + "'"
	return "SET sql_log_bin = 0;\n" +
		"DELETE FROM mysql.global_priv WHERE User = 'root' AND Host NOT IN ('localhost', '127.0.0.1', '::1');\n" +
		"FLUSH PRIVILEGES;\n" +
		"ALTER USER IF EXISTS 'root'@'localhost' " + id + ", 'root'@'127.0.0.1' " + id + ", 'root'@'::1' " + id + ";\n"
}

// accessDenied tells whether err is MariaDB's "Access denied" (a wrong
// password, or one given where none is set).
func accessDenied(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1045
}

// rootPassword reads root's password from the option file at path; the
// first time, it makes the file with a new random one.
func rootPassword(path string) (string, error) {
	b, err := readPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw := make([]byte, 18)
		if _, err := rand.Read(raw); err != nil {
			return "", err
		}
		// Hex: nothing to quote in SQL or in an option file.
		pw := hex.EncodeToString(raw)
		text := "# The native MySQL's (MariaDB's) root account, made by labgen up; read it with\n" +
			"#   mariadb --defaults-extra-file=" + path + " --protocol=tcp -h 127.0.0.1 -P PORT\n" +
			"[client]\nuser=root\npassword=" + pw + "\n"
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", err
		}
		return pw, writePrivate(path, []byte(text))
	}
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "password" {
			if pw := strings.TrimSpace(v); pw != "" {
				return pw, nil
			}
		}
	}
	return "", fmt.Errorf("%s has no password= line (labgen down --volumes starts the stack afresh, without its data)", path)
}

// writePrivate writes a new file only the user can read (0600, whatever
// the umask), refusing to follow or replace what is at path.
func writePrivate(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// readPrivate reads a file that holds a secret: a regular file (not a
// link to one elsewhere), made only the user's again if its mode was
// opened up.
func readPrivate(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; it should hold the native MySQL's root password", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, err
		}
	}
	return os.ReadFile(path)
}

// sqlQuoted escapes values that go between single quotes of MySQL SQL, so
// that a password with ' or \ stays one string.
func sqlQuoted(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = sqlQuote.Replace(v)
	}
	return out
}

// sqlQuote escapes a value that goes between single quotes of MySQL SQL.
var sqlQuote = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// mariadbUser lets mariadbd run as root, which it otherwise refuses.
func mariadbUser() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

// lookSbin finds a MariaDB program on PATH or in /usr/sbin (not on a
// normal user's PATH on Debian).
func lookSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if p := filepath.Join("/usr/sbin", name); isExec(p) {
		return p, nil
	}
	return "", fmt.Errorf("%s is not installed: the native stack runs MySQL as MariaDB from Debian's package (apt-get install mariadb-server)", name)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
