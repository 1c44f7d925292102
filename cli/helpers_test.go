package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/schemas"
)

// run runs labgen with args and returns the exit code and both outputs,
// with dir replaced by DIR so that expectations do not depend on it.
func run(t *testing.T, dir string, environ []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""), Environ: environ}
	code := RunEnv(context.Background(), args, env)
	clean := func(s string) string {
		if dir == "" {
			return s
		}
		return strings.ReplaceAll(s, dir, "DIR")
	}
	return code, clean(stdout.String()), clean(stderr.String())
}

// seedLab is a rendered lab directory as produce and console read it:
// lab.json of the seed lab (changed by edit, if not nil) and, if dotenv is
// not empty, a .env.
func seedLab(t *testing.T, dotenv string, edit func(*schemas.Lab)) string {
	t.Helper()
	p := schemas.NewParser()
	lab, diags := p.Load("../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if edit != nil {
		edit(lab)
	}
	files := map[string]string{}
	if dotenv != "" {
		files[".env"] = dotenv
	}
	return labdirtest.Rendered(t, lab, files)
}

// closedPort is an address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
