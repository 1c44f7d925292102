package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// render --target kubernetes writes the base beside the compose lab, with
// the broker count asked for; wrong targets and flags are usage errors.
func TestRenderKubernetes(t *testing.T) {
	seed := filepath.Join("..", "labs", "orders")
	out := t.TempDir()
	code, stdout, stderr := run(t, out, nil, "render", seed, "-o", out, "--target", "kubernetes", "-brokers", "3")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, p := range []string{"compose.yaml", "kubernetes/kustomization.yaml", "kubernetes/flink.yaml", "kubernetes/README.md"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("render --target kubernetes did not write %s", p)
		}
	}
	kafka, _ := os.ReadFile(filepath.Join(out, "kubernetes", "kafka.yaml"))
	if !strings.Contains(string(kafka), "  replicas: 3\n") {
		t.Errorf("-brokers 3: kafka.yaml has no node pool of three:\n%s", kafka)
	}
	// A plain render again removes the base (the lock listed it).
	if code, _, stderr := run(t, out, nil, "render", seed, "-o", out); code != ExitOK {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "kubernetes", "kustomization.yaml")); err == nil {
		t.Error("a render without --target kubernetes left the old base behind")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "nomad"}, `--target is compose or kubernetes, not "nomad"`},
		{[]string{"--target", "kubernetes", "-brokers", "0"}, "-brokers must be at least 1"},
	} {
		code, _, stderr := run(t, out, nil, append([]string{"render", seed, "-o", out}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("render %v: exit %d, %q; want a usage error %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := run(t, out, nil, "up", out, "--dry-run"); code != ExitUsage || !strings.Contains(stderr, "--dry-run goes with --kubernetes") {
		t.Errorf("up --dry-run without --kubernetes: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, out, nil, "up", out, "--kubernetes"); code != ExitUsage || !strings.Contains(stderr, "has no Kubernetes base") {
		t.Errorf("up --kubernetes without a base: exit %d, %q", code, stderr)
	}
}
