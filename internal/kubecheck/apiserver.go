package kubecheck

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

// APIServer is a real kube-apiserver over its own etcd, on free ports of
// 127.0.0.1, for the test that started it: no nodes, no controllers, so
// nothing runs, but every write is admitted and validated as on a
// cluster. Requests with Token act as a member of system:masters.
type APIServer struct {
	URL     string
	Token   string
	bin     string
	workDir string
}

// BinDir is where prove/kube/build-servers.sh keeps kube-apiserver,
// kubectl and etcd of KubernetesVersion.
func BinDir() string {
	if d := os.Getenv("LABGEN_KUBE_CACHE"); d != "" {
		return filepath.Join(d, "v"+KubernetesVersion)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "labgen", "kube", "v"+KubernetesVersion)
}

// StartAPIServer starts etcd and kube-apiserver for t. Without the
// binaries (make deps builds them: prove/kube/build-servers.sh) the test
// is skipped, or fails under LABGEN_TEST_SERVERS=require.
func StartAPIServer(t testing.TB) *APIServer {
	t.Helper()
	mode := testproc.Mode(t, "kubecheck", "the Kubernetes API server tests")
	bin := BinDir()
	for _, b := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			testproc.Missing(t, mode, fmt.Sprintf("kubecheck: no %s in %s (build them with prove/kube/build-servers.sh, which make deps runs)", b, bin))
		}
	}
	dir, err := proc.NewDir("labgen-test-", "kube")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Remove() })

	etcdURL, etcd, err := proc.RetryPorts(func() (string, *proc.Proc, error) { return startEtcd(bin, dir) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { etcd.Stop() })
	token := randomToken()
	url, api, err := proc.RetryPorts(func() (string, *proc.Proc, error) {
		return startKubeAPIServer(bin, dir, etcdURL, token)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Stop() })
	return &APIServer{URL: url, Token: token, bin: bin, workDir: dir.Path}
}

func startEtcd(bin string, dir *proc.Dir) (string, *proc.Proc, error) {
	client, err := proc.FreePort()
	if err != nil {
		return "", nil, err
	}
	peer, err := proc.FreePort()
	if err != nil {
		return "", nil, err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	data := dir.Join("etcd-" + strconv.Itoa(client))
	cmd := exec.Command(filepath.Join(bin, "etcd"),
		"--name", "labgen", "--data-dir", data,
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "labgen="+peerURL,
		// The data is thrown away: no fsync, small and quiet.
		"--unsafe-no-fsync", "--quota-backend-bytes", strconv.Itoa(1<<30), "--log-level", "warn")
	p, err := proc.StartProc("etcd", cmd, dir.Join("etcd.out"), "")
	if err != nil {
		return "", nil, err
	}
	pace := proc.Pace{Timeout: 60 * time.Second, Probe: 2 * time.Second, Interval: 200 * time.Millisecond}
	err = p.WaitReady(time.Now().Add(pace.Timeout), pace, func(ctx context.Context) error {
		return get(ctx, http.DefaultClient, clientURL+"/health", "")
	})
	if err != nil {
		p.Stop()
		return "", p, err
	}
	return clientURL, p, nil
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return fmt.Sprintf("%x", b)
}

func startKubeAPIServer(bin string, dir *proc.Dir, etcdURL, token string) (string, *proc.Proc, error) {
	port, err := proc.FreePort()
	if err != nil {
		return "", nil, err
	}
	key := dir.Join("sa.key")
	if _, err := os.Stat(key); err != nil {
		if err := writeKey(key); err != nil {
			return "", nil, err
		}
	}
	tokens := dir.Join("tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+`,labgen-test,labgen-test,"system:masters"`+"\n"), 0o600); err != nil {
		return "", nil, err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		// A self-signed serving certificate in --cert-dir.
		"--cert-dir", dir.Join("certs"),
		// No node runs: the kubernetes Service's endpoints are nobody's.
		"--endpoint-reconciler-type", "none",
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", key, "--service-account-signing-key-file", key,
		// The test's token is a member of system:masters, which RBAC
		// allows everything.
		"--token-auth-file", tokens, "--authorization-mode", "RBAC",
		"--enable-priority-and-fairness=false",
		"--v", "1")
	p, err := proc.StartProc("kube-apiserver", cmd, dir.Join("kube-apiserver.out"), "")
	if err != nil {
		return "", nil, err
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	pace := proc.Pace{Timeout: 3 * time.Minute, Probe: 5 * time.Second, Interval: 500 * time.Millisecond}
	err = p.WaitReady(time.Now().Add(pace.Timeout), pace, func(ctx context.Context) error {
		return get(ctx, insecure, url+"/readyz", token)
	})
	if err != nil {
		p.Stop()
		return "", p, err
	}
	return url, p, nil
}

func get(ctx context.Context, c *http.Client, url, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// writeKey writes the RSA key that signs and verifies service account
// tokens (the API server will not start without one).
func writeKey(path string) error {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	return os.WriteFile(path, b, 0o600)
}

// Kubectl runs the kubectl of the same build against the server and
// returns its standard output, or an error carrying its standard error.
func (s *APIServer) Kubectl(args ...string) (string, error) {
	full := append([]string{"--server", s.URL, "--token", s.Token, "--insecure-skip-tls-verify=true", "--request-timeout=120s"}, args...)
	cmd := exec.Command(filepath.Join(s.bin, "kubectl"), full...)
	// No kubeconfig of the machine's may leak in.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(s.workDir, "no-kubeconfig"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// KubectlPath is the kubectl of the same build.
func (s *APIServer) KubectlPath() string { return filepath.Join(s.bin, "kubectl") }

// WriteKubeconfig writes a kubeconfig whose current context is this
// server (the test's token, its self-signed certificate not checked) and returns
// its path, for KUBECONFIG.
func (s *APIServer) WriteKubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	conf := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: labgen-test
  user:
    token: %s
contexts:
- name: test
  context:
    cluster: test
    user: labgen-test
current-context: test
`, s.URL, s.Token)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
