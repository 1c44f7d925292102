package native

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	args := []string{
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
	args = append(args, mariadbUser()...)
	root := mysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "tcp", addr
	root.Timeout = 2 * time.Second
	root.Logger = &mysql.NopLogger{}
	open := func(multi bool) (*sql.DB, error) {
		cfg := root.Clone()
		cfg.MultiStatements = multi
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		return sql.OpenDB(c), nil
	}
	return Service{
		Name: "mysql",
		Argv: args,
		Setup: func(ctx context.Context) error {
			// Normal root authentication: root@localhost with no password
			// over TCP on 127.0.0.1, not unix_socket auth tied to the OS user.
			install := []string{"--no-defaults", "--datadir=" + datadir, "--tmpdir=" + data,
				"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}
			install = append(install, mariadbUser()...)
			cmd := exec.CommandContext(ctx, installDB, install...)
			cmd.WaitDelay = 5 * time.Second
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
			}
			return nil
		},
		Health: Probe{Func: func(ctx context.Context) error {
			db, err := open(false)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.PingContext(ctx)
		}, Start: time.Minute},
		// The schema and the lab's users, as the MySQL image's init scripts
		// create them; both are idempotent (IF NOT EXISTS).
		Ready: func(ctx context.Context) error {
			db, err := open(true)
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

// sqlQuoted escapes values that go between single quotes of MySQL SQL, so
// that a password with ' or \ stays one string.
func sqlQuoted(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`)
	for k, v := range env {
		out[k] = r.Replace(v)
	}
	return out
}

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
