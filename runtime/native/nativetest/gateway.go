// Package nativetest starts a real Flink SQL gateway for tests of code that
// asks Flink's planner (EXPLAIN, CREATE … through a session): the gateway
// of the native stack, over the class path the native stack resolves from
// Maven for the given rendered labs, on free ports, without a JobManager
// (planning needs none).
package nativetest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
)

// Enabled skips the test unless LABGEN_TEST_SERVERS=require (as CI sets
// it) or LABGEN_FLINK_TEST=1: a gateway is a JVM of about half a
// gigabyte that takes tens of seconds to start, and the first resolution
// downloads Flink's jars. With "require", a missing java or mvn fails.
func Enabled(t testing.TB) {
	t.Helper()
	mode := os.Getenv("LABGEN_TEST_SERVERS")
	if mode != "require" && os.Getenv("LABGEN_FLINK_TEST") != "1" {
		t.Skip("starts a Flink SQL gateway: set LABGEN_TEST_SERVERS=require (as CI does) or LABGEN_FLINK_TEST=1")
	}
	for _, bin := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(bin); err != nil {
			if mode == "require" {
				t.Fatalf("%s is required (apt-get install default-jdk-headless maven)", bin)
			}
			t.Skipf("%s is missing (apt-get install default-jdk-headless maven)", bin)
		}
	}
}

// Gateway starts a SQL gateway whose class path holds the Flink jars and
// connector jars of every given rendered lab (their labgen.lock), and
// returns its URL. It is stopped when the test ends. The first lab's
// Flink settings configure it.
func Gateway(t testing.TB, labs ...*labdir.Lab) string {
	t.Helper()
	Enabled(t)
	if len(labs) == 0 {
		t.Fatal("nativetest.Gateway needs a rendered lab")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var cp *native.Classpaths
	seen := map[string]bool{}
	for _, lab := range labs {
		c, err := native.Resolve(ctx, lab, func(s string) { t.Log(s) })
		if err != nil {
			t.Fatal(err)
		}
		if cp == nil {
			cp = c
			for _, j := range c.Flink {
				seen[filepath.Base(j)] = true
			}
			continue
		}
		// The same jar (by file name) once: Flink's own jars are shared,
		// each lab adds its connectors.
		for _, j := range c.Flink {
			if !seen[filepath.Base(j)] {
				seen[filepath.Base(j)] = true
				cp.Flink = append(cp.Flink, j)
			}
		}
	}
	lay, err := native.NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	port, err := proc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// Only the gateway runs; the other ports are never bound.
	p := native.Ports{Gateway: port, FlinkREST: port + 1, FlinkRPC: port + 2, FlinkBlob: port + 3}
	s := native.SQLGatewayService(lay, cp, p, native.FlinkConfig(labs[0].Lab, lay, p))
	for path, b := range s.Files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := lay.Data(s.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(lay.Log(s.Name)), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), s.Env...)
	began := time.Now()
	gw, err := proc.StartProc(s.Name, cmd, lay.Log(s.Name), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gw.Stop() })
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	err = gw.WaitReady(time.Now().Add(3*time.Minute), proc.Pace{Timeout: 3 * time.Minute, Probe: 5 * time.Second, Interval: 300 * time.Millisecond}, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/info", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s/v1/info: %s", url, resp.Status)
		}
		return nil
	})
	if err != nil {
		log, _ := os.ReadFile(lay.Log(s.Name))
		t.Fatalf("the SQL gateway did not start: %v\n%s", err, proc.Tail(string(log), 30))
	}
	t.Logf("SQL gateway at %s after %s", url, time.Since(began).Round(100*time.Millisecond))
	return url
}
