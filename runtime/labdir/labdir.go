// Package labdir reads a rendered lab directory (what labgen render
// writes) as the commands that run a lab see it: lab.json for the lab and
// its stack, .env for the users and passwords of the lab's services, and
// from both the default endpoints: the services on 127.0.0.1 at the ports
// of lab.json, as the users of .env.
package labdir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// The .env keys of the lab's users.
const (
	MySQLAppUser             = "MYSQL_APP_USER"
	MySQLAppPassword         = "MYSQL_APP_PASSWORD"
	MySQLReaderUser          = "MYSQL_READER_USER"
	MySQLReaderPassword      = "MYSQL_READER_PASSWORD"
	PostgresAppUser          = "POSTGRES_APP_USER"
	PostgresAppPassword      = "POSTGRES_APP_PASSWORD"
	PostgresReaderUser       = "POSTGRES_READER_USER"
	PostgresReaderPassword   = "POSTGRES_READER_PASSWORD"
	ClickHouseReaderUser     = "CLICKHOUSE_READER_USER"
	ClickHouseReaderPassword = "CLICKHOUSE_READER_PASSWORD"
)

// Lab is a rendered lab directory: lab.json and .env, nothing else of the
// source.
type Lab struct {
	Dir  string
	Lab  *schemas.Lab
	JSON []byte
	// Env is .env (empty when the file is missing, see HasEnv).
	Env map[string]string
	// HasEnv tells whether the directory has a .env.
	HasEnv bool
}

// NotRenderedError is Load's error for a directory without lab.json.
type NotRenderedError struct {
	Dir string
	// Source tells that Dir holds a lab's HCL source instead.
	Source bool
}

func (e *NotRenderedError) Error() string {
	if e.Source {
		return fmt.Sprintf("%s is a lab's source, not a rendered lab directory; render it first (labgen render %s -o out/NAME)", e.Dir, e.Dir)
	}
	return fmt.Sprintf("%s has no lab.json: it is not a rendered lab directory (labgen render LAB_DIR -o %s writes one there)", e.Dir, e.Dir)
}

// Load reads a rendered lab directory: lab.json, which must be there (else
// the error is a *NotRenderedError), and .env, which may be missing.
func Load(dir string) (*Lab, error) {
	l, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if err := l.LoadEnv(); err != nil {
		return nil, err
	}
	return l, nil
}

// Open is Load without .env, for a command that needs it only sometimes:
// it calls LoadEnv when it does.
func Open(dir string) (*Lab, error) {
	p := filepath.Join(dir, "lab.json")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notRendered(dir)
	}
	if err != nil {
		return nil, err
	}
	lab, err := schemas.ReadLabJSON(p)
	if err != nil {
		return nil, err
	}
	return &Lab{Dir: dir, Lab: lab, JSON: b, Env: map[string]string{}}, nil
}

// LoadEnv reads the directory's .env into Env. A missing .env is no
// error: Env stays empty and HasEnv false.
func (l *Lab) LoadEnv() error {
	env, err := ReadEnv(l.EnvPath())
	switch {
	case err == nil:
		l.Env, l.HasEnv = env, true
	case errors.Is(err, fs.ErrNotExist):
		l.Env, l.HasEnv = map[string]string{}, false
	default:
		return err
	}
	return nil
}

// Check reports whether dir is a rendered lab directory (has lab.json),
// without reading it; the error is a *NotRenderedError.
func Check(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "lab.json")); errors.Is(err, fs.ErrNotExist) {
		return notRendered(dir)
	}
	return nil
}

func notRendered(dir string) error {
	e := &NotRenderedError{Dir: dir}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		if files, _ := schemas.LabFiles(dir); len(files) > 0 {
			e.Source = true
		}
	}
	return e
}

// EnvPath is the path of the directory's .env.
func (l *Lab) EnvPath() string { return filepath.Join(l.Dir, ".env") }

// Hash is "sha256:" + the hex sha256 of lab.json.
func (l *Lab) Hash() string {
	s := sha256.Sum256(l.JSON)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Secrets are the .env values whose keys name secrets.
func (l *Lab) Secrets() []string {
	var out []string
	for k, v := range l.Env {
		if isSecretKey(k) {
			out = append(out, v)
		}
	}
	return out
}

func isSecretKey(k string) bool {
	k = strings.ToUpper(k)
	return strings.Contains(k, "PASSWORD") || strings.Contains(k, "SECRET") || strings.Contains(k, "TOKEN")
}

// Getenv is key's value in environ (KEY=VALUE entries, the last one wins)
// when it is set there and not empty, else .env's.
func (l *Lab) Getenv(environ []string, key string) string {
	if v := LookupEnv(environ, key); v != "" {
		return v
	}
	return l.Env[key]
}

// LookupEnv is key's value in environ (KEY=VALUE entries, as os.Environ
// gives them; the last one wins), or "".
func LookupEnv(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// ReadEnv reads a compose .env file: KEY=VALUE lines, # comments, an
// optional export prefix, values optionally in single or double quotes,
// and " #" comments after unquoted values.
func ReadEnv(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not KEY=VALUE", path, n)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		env[k] = v
	}
	return env, sc.Err()
}
