package testsrv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

// EnvVar selects what happens when a server binary is missing; see the
// package documentation.
const EnvVar = testproc.EnvVar

const (
	// startTimeout bounds install + start + readiness. Generous because CI
	// machines are shared; a healthy start takes well under a second.
	startTimeout = 60 * time.Second
	// dirPrefix names server directories in os.TempDir(), so stale ones can
	// be found and swept.
	dirPrefix = "labgen-testsrv-"
)

// pace is how a starting server is probed.
var pace = proc.Pace{Timeout: startTimeout, Probe: time.Second, Interval: 50 * time.Millisecond}

// servers are the shared servers, stopped by Run after the last test.
var servers = testproc.Servers{Teardown: "testsrv: stopping servers"}

// Main runs the package's tests and then stops the servers they started. Use
// it as the whole TestMain:
//
//	func TestMain(m *testing.M) { testsrv.Main(m) }
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for packages that have their own TestMain: it runs m, stops the
// shared servers, and returns the exit code for os.Exit.
func Run(m *testing.M) int {
	return servers.Run(m, (*testing.M).Run)
}

// binaries resolves the named executables or ends the test according to
// LABGEN_TEST_SERVERS. It returns only when all were found.
func binaries(t testing.TB, debPkg string, names ...string) []string {
	t.Helper()
	mode := testproc.Mode(t, "testsrv", "database servers")
	if !servers.Active() {
		t.Fatal("testsrv: shared servers are stopped by testsrv.Main; add " +
			"`func TestMain(m *testing.M) { testsrv.Main(m) }` to this package's tests " +
			"(or call testsrv.Run from an existing TestMain)")
	}
	paths := make([]string, len(names))
	for i, name := range names {
		p, err := lookBin(name)
		if err == nil {
			paths[i] = p
			continue
		}
		testproc.Missing(t, mode, fmt.Sprintf("testsrv: %s not found in PATH or /usr/sbin (install Debian package %s)", name, debPkg))
	}
	return paths
}

// lookBin also searches the sbin directories, where Debian puts the server
// daemons but which are not on a normal user's PATH.
func lookBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", name)
}

// dbSeq keeps database and user names unique within the test binary.
var dbSeq atomic.Int64

// dbName derives a database name from the test name, so a leftover database
// in a server log points at its test. Only [a-z0-9_] is kept, which needs no
// quoting in either server.
func dbName(t testing.TB) string {
	return testproc.Name(t, '_', 40, dbSeq.Add(1))
}
