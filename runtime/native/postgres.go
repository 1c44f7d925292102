package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresStandIn is what the record and the runbook say of the native
// PostgreSQL.
const PostgresStandIn = "PostgreSQL from Debian's package (15 on bookworm) stands in for the postgres:17 image; Flink CDC reads its write-ahead log through pgoutput as it does 17's"

// postgresService is the native face of the compose service "postgres":
// postgres from Debian's package with logical decoding for Flink CDC
// (wal_level=logical, a slot and a WAL sender per source), as the compose
// command line sets. database is the lab's database (the image's
// POSTGRES_DB); schema and users are the rendered sql/postgres files of
// the native face; env is .env: POSTGRES_PASSWORD is the superuser's,
// the others fill users.sql's psql variables.
func postgresService(lay Layout, port int, database string, schema, users []byte, env map[string]string) (Service, error) {
	bin, err := postgresBinDir()
	if err != nil {
		return Service{}, err
	}
	cred, err := postgresCredential()
	if err != nil {
		return Service{}, err
	}
	data := lay.Data("postgres")
	pgdata := filepath.Join(data, "pgdata")
	admin := func(db string) (*pgx.ConnConfig, error) {
		cfg, err := pgx.ParseConfig("host=127.0.0.1 sslmode=disable connect_timeout=2")
		if err != nil {
			return nil, err
		}
		cfg.Port = uint16(port)
		cfg.User, cfg.Password, cfg.Database = "postgres", env["POSTGRES_PASSWORD"], db
		return cfg, nil
	}
	connect := func(ctx context.Context, db string) (*pgx.Conn, error) {
		cfg, err := admin(db)
		if err != nil {
			return nil, err
		}
		return pgx.ConnectConfig(ctx, cfg)
	}
	args := []string{
		filepath.Join(bin, "postgres"),
		"-D", pgdata,
		"-h", "127.0.0.1",
		"-p", strconv.Itoa(port),
		// No unix socket: clients use TCP, and a socket path under the lab
		// could exceed sun_path.
		"-k", "",
		// What compose's command line sets: logical decoding for Flink CDC
		// (pgoutput), a slot per source.
		"-c", "wal_level=logical",
		"-c", "max_replication_slots=16",
		"-c", "max_wal_senders=16",
		"-c", "timezone=UTC",
		"-c", "shared_buffers=64MB",
		"-c", "logging_collector=off",
	}
	return Service{
		Name:       "postgres",
		Argv:       args,
		Credential: cred,
		Setup: func(ctx context.Context) error {
			pw := env["POSTGRES_PASSWORD"]
			if pw == "" {
				return errors.New(".env sets no POSTGRES_PASSWORD, the superuser's password")
			}
			if err := chownTo(data, cred); err != nil {
				return err
			}
			// A setup that failed half-way left a directory initdb refuses.
			if err := os.RemoveAll(pgdata); err != nil {
				return err
			}
			pwfile := filepath.Join(data, ".pwfile")
			if err := os.WriteFile(pwfile, []byte(pw+"\n"), 0o600); err != nil {
				return err
			}
			defer os.Remove(pwfile)
			if err := chownTo(pwfile, cred); err != nil {
				return err
			}
			// Passwords over TCP (scram-sha-256), as the image sets up;
			// the superuser's is POSTGRES_PASSWORD.
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", pgdata, "-U", "postgres",
				"--pwfile="+pwfile, "--auth-local=trust", "--auth-host=scram-sha-256",
				"-E", "UTF8", "--locale=C", "--no-instructions")
			cmd.Dir = data
			if cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			}
			cmd.WaitDelay = 5 * time.Second
			if out, err := cmd.CombinedOutput(); err != nil {
				hint := ""
				if cred != nil {
					hint = fmt.Sprintf(" (initdb runs as the postgres user, uid %d: every directory above %s must be searchable by it)", cred.Uid, data)
				}
				return fmt.Errorf("initdb: %v%s\n%s", err, hint, out)
			}
			return nil
		},
		Health: Probe{Func: func(ctx context.Context) error {
			c, err := connect(ctx, "postgres")
			if err != nil {
				return err
			}
			defer c.Close(context.Background())
			return c.Ping(ctx)
		}, Start: time.Minute},
		// The lab's database, its schema and users, as the image's init
		// scripts create them on a first start; again on every start
		// without harm (IF NOT EXISTS, a guarded publication, ALTER ROLE
		// for a role that exists).
		Ready: func(ctx context.Context) error {
			c, err := connect(ctx, "postgres")
			if err != nil {
				return err
			}
			var exists bool
			err = c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", database).Scan(&exists)
			if err == nil && !exists {
				_, err = c.Exec(ctx, "CREATE DATABASE "+pgIdent(database)+" ENCODING 'UTF8' TEMPLATE template0")
			}
			c.Close(context.Background())
			if err != nil {
				return fmt.Errorf("database %s: %w", database, err)
			}
			c, err = connect(ctx, database)
			if err != nil {
				return err
			}
			defer c.Close(context.Background())
			if _, err := c.PgConn().Exec(ctx, string(schema)).ReadAll(); err != nil {
				return fmt.Errorf("sql/postgres/schema.sql: %w", err)
			}
			filled, err := postgresUsersSQL(ctx, c, string(users), env)
			if err != nil {
				return err
			}
			if _, err := c.PgConn().Exec(ctx, filled).ReadAll(); err != nil {
				return fmt.Errorf("sql/postgres/users.sql: %w", err)
			}
			return nil
		},
		Memory:  "≈150m",
		Why:     "shared_buffers 64 MB",
		StandIn: PostgresStandIn,
	}, nil
}

var (
	// psql's variables in users.sql: :"name" is an identifier, :'name' a
	// literal.
	psqlVar    = regexp.MustCompile(`:"(\w+)"|:'(\w+)'`)
	createRole = regexp.MustCompile(`CREATE ROLE :"(\w+)"`)
)

// postgresUsersSQL fills users.sql's psql variables as init-users.sh has
// psql do (app_user is .env's POSTGRES_APP_USER), each value quoted, and
// turns the CREATE ROLE of a role that exists into ALTER ROLE (same
// options), so that a second run updates rather than fails.
func postgresUsersSQL(ctx context.Context, c *pgx.Conn, users string, env map[string]string) (string, error) {
	missing := map[string]bool{}
	value := func(name string) string {
		k := "POSTGRES_" + strings.ToUpper(name)
		v, ok := env[k]
		if !ok {
			missing[k] = true
		}
		return v
	}
	var err error
	users = createRole.ReplaceAllStringFunc(users, func(m string) string {
		name := value(createRole.FindStringSubmatch(m)[1])
		var exists bool
		if e := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", name).Scan(&exists); e != nil {
			err = e
		}
		if exists {
			return "ALTER" + strings.TrimPrefix(m, "CREATE")
		}
		return m
	})
	if err != nil {
		return "", err
	}
	filled := psqlVar.ReplaceAllStringFunc(users, func(m string) string {
		sm := psqlVar.FindStringSubmatch(m)
		if sm[1] != "" {
			return pgIdent(value(sm[1]))
		}
		return pgLiteral(value(sm[2]))
	})
	if len(missing) > 0 {
		var names []string
		for k := range missing {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", fmt.Errorf("sql/postgres/users.sql uses %s, which .env does not set", strings.Join(names, ", "))
	}
	return filled, nil
}

// pgIdent quotes a PostgreSQL identifier.
func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgLiteral quotes a PostgreSQL string literal as an escape string (E”),
// which means the same whatever standard_conforming_strings says.
func pgLiteral(s string) string {
	return `E'` + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + `'`
}

// postgresBinDir is Debian's /usr/lib/postgresql/VERSION/bin (the newest
// release installed), where initdb and postgres live off PATH.
func postgresBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d))); return n }
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "postgres")) && isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if d := filepath.Dir(p); isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	return "", errors.New("PostgreSQL is not installed: the native stack runs it from Debian's package (apt-get install postgresql)")
}

// postgresCredential is whom initdb and postgres run as: both refuse
// root, so as root they run as Debian's postgres user.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("running as root, and there is no postgres user to run PostgreSQL as (apt-get install postgresql creates it)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func chownTo(path string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return os.Chown(path, int(cred.Uid), int(cred.Gid))
}
