package kubecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/internal/testproc"
)

// KubernetesVersion is the release whose OpenAPI documents the offline
// check reads and whose kube-apiserver the server tests build
// (prove/kube/build-servers.sh's KUBE_VERSION).
const KubernetesVersion = "1.37.2"

// Groups are the OpenAPI documents of the built-in kinds the render uses.
var Groups = []string{"api__v1_openapi.json", "apis__apps__v1_openapi.json", "apis__batch__v1_openapi.json"}

// repoRoot is the directory of labgen's go.mod, found upwards from the
// test's working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/labgen/labgen\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("kubecheck: labgen's go.mod is not above the working directory")
		}
		dir = parent
	}
}

// CRDDir is the directory of the operators' CRDs that prove/kube/crds.sh
// writes (from Maven Central, once; then from its cache). Without Java 21
// or Maven the test is skipped, or fails under LABGEN_TEST_SERVERS=require.
func CRDDir(t testing.TB) string {
	t.Helper()
	mode := testproc.Mode(t, "kubecheck", "the operators' CRDs")
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		testproc.Missing(t, mode, "kubecheck: Maven is needed for the operators' CRDs (scripts/install-deps.sh)")
	}
	cmd := exec.Command(filepath.Join(root, "prove", "kube", "crds.sh"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := fmt.Sprintf("kubecheck: prove/kube/crds.sh: %v\n%s", err, stderr.String())
		if strings.Contains(stderr.String(), "needs Java 21") {
			testproc.Missing(t, mode, msg)
		}
		t.Fatal(msg)
	}
	return strings.TrimSpace(string(out))
}

// OpenAPIDir is api/openapi-spec/v3 of the k8s.io/kubernetes module at
// KubernetesVersion, from the Go module proxy (checked against the
// checksum database like every module).
func OpenAPIDir(t testing.TB) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@v"+KubernetesVersion)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubecheck: go mod download k8s.io/kubernetes@v%s: %v\n%s", KubernetesVersion, err, out)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("kubecheck: go mod download k8s.io/kubernetes: %s %v", m.Error, err)
	}
	return filepath.Join(m.Dir, "api", "openapi-spec", "v3")
}

// NewForTest is a Checker of the operators' CRDs and the built-in kinds.
func NewForTest(t testing.TB) *Checker {
	t.Helper()
	c, err := New(CRDDir(t), OpenAPIDir(t), Groups...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
