package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labgen/labgen/native/chdb"
)

// ClickHouseUsers are the users the chdb front accepts, as .env names
// them: the admin (CLICKHOUSE_USER) and the read-only reader
// (CLICKHOUSE_READER_USER), which the front forces to readonly=1.
type ClickHouseUsers struct {
	Admin, AdminPassword   string
	Reader, ReaderPassword string
}

// EnsureChdb returns the Python interpreter of a virtualenv holding the
// chdb front's pinned packages (native/chdb/requirements.txt), creating it
// under Cache()/chdb once per requirements and interpreter. progress, when
// not nil, hears what takes time.
func EnsureChdb(ctx context.Context, progress func(string)) (python string, err error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", errors.New("the native ClickHouse (chdb) needs Python 3.9 or later: install Debian packages python3 and python3-venv")
	}
	// The interpreter's version is part of the key: a venv does not
	// survive its interpreter changing.
	out, err := exec.CommandContext(ctx, py, "-c",
		"import sys, venv, ensurepip; print(sys.version.split()[0]); sys.exit(0 if sys.version_info >= (3, 9) else 3)").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			return "", fmt.Errorf("the native ClickHouse (chdb) needs Python 3.9 or later; %s is %s", py, strings.TrimSpace(string(out)))
		}
		return "", fmt.Errorf("%s has no venv/ensurepip module: install Debian package python3-venv", py)
	}
	sum := sha256.Sum256(append(append([]byte{}, chdb.Requirements...), out...))
	dir := filepath.Join(Cache(), "chdb", hex.EncodeToString(sum[:])[:16])
	venvPython := filepath.Join(dir, "venv", "bin", "python")
	if _, err := os.Stat(filepath.Join(dir, "ok")); err == nil {
		return venvPython, nil
	}
	if progress != nil {
		progress(fmt.Sprintf("creating the chdb virtualenv in %s (pip install chdb, ≈180 MB download, ≈600 MB installed; a minute or two)", dir))
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Built beside its place and renamed into it, so that an interrupted or
	// concurrent creation never leaves a half-made venv that looks ready.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	req := filepath.Join(tmp, "requirements.txt")
	if err := os.WriteFile(req, chdb.Requirements, 0o644); err != nil {
		return "", err
	}
	venv := filepath.Join(tmp, "venv")
	run := func(name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(buf.String(), 2000))
		}
		return nil
	}
	start := time.Now()
	if err := run(py, "-m", "venv", venv); err != nil {
		return "", fmt.Errorf("creating the chdb virtualenv (install Debian package python3-venv if the venv module is missing): %w", err)
	}
	// --no-deps: the front needs only chdb and chdb-core (see requirements.txt).
	if err := run(filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
		"--no-input", "--no-deps", "--require-hashes", "-r", req); err != nil {
		return "", fmt.Errorf("installing chdb: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "ok"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, "ok")); err2 == nil {
			return venvPython, nil // another labgen made it meanwhile
		}
		return "", err
	}
	if progress != nil {
		progress(fmt.Sprintf("chdb virtualenv ready in %s", time.Since(start).Round(time.Second)))
	}
	return venvPython, nil
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ClickHouseService is the native stand-in for the compose service
// "clickhouse": chdb (ClickHouse 26.9 in-process) behind front.py, which
// speaks ClickHouse's HTTP interface on 127.0.0.1:port. python is
// EnsureChdb's interpreter; schema is the lab's ClickHouse schema with the
// Kafka broker address of the native stack, applied (idempotently) at every
// start, which also re-creates the Kafka-engine tables chdb cannot reload.
func ClickHouseService(lay Layout, python string, port int, schema []byte, users ClickHouseUsers) Service {
	conf := lay.Conf("clickhouse")
	front, schemaFile := filepath.Join(conf, "front.py"), filepath.Join(conf, "schema.sql")
	argv := []string{python, front, "--path", lay.Data("clickhouse"), "--host", "127.0.0.1", "--port", strconv.Itoa(port)}
	files := map[string][]byte{front: chdb.Front}
	if len(schema) > 0 {
		argv = append(argv, "--schema", schemaFile)
		files[schemaFile] = schema
	}
	// Users travel in the environment, not in argv, so ps does not show
	// the passwords.
	var env []string
	if users.Admin != "" {
		env = append(env, "CLICKHOUSE_USER="+users.Admin, "CLICKHOUSE_PASSWORD="+users.AdminPassword)
	}
	if users.Reader != "" {
		env = append(env, "CLICKHOUSE_READER_USER="+users.Reader, "CLICKHOUSE_READER_PASSWORD="+users.ReaderPassword)
	}
	return Service{
		Name:    "clickhouse",
		Argv:    argv,
		Env:     env,
		Files:   files,
		Health:  httpProbe("clickhouse", "http://127.0.0.1:"+strconv.Itoa(port), time.Minute),
		Memory:  "512m",
		Why:     "chdb front measured at ≈340 MB RSS with the lab's Kafka ingest running",
		StandIn: "chdb 4.4.0 (ClickHouse 26.9.2.1, in-process) behind an HTTP front for clickhouse-server",
	}
}
