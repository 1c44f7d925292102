package kube_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/cli"
	"github.com/labgen/labgen/internal/kubecheck"
	"github.com/labgen/labgen/render"
	rkube "github.com/labgen/labgen/render/kube"
	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/schemas"
)

// renderSeed writes the seed lab with its Kubernetes base into a
// directory.
func renderSeed(t *testing.T) string {
	t.Helper()
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", "orders"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files, err := render.Render(lab, render.Options{LabgenVersion: "test", NoSource: true, Targets: []render.Target{rkube.Target(rkube.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := render.Write(out, files); err != nil {
		t.Fatal(err)
	}
	return out
}

// On a real API server (no nodes, no operators: nothing becomes ready by
// itself): labgen up --kubernetes --dry-run has the server accept the
// lab; Apply creates it; the states read back say what is not ready and
// follow a status the controller would write; Wait gives up naming what
// is not ready; labgen down --kubernetes deletes it.
func TestUpDownOnAPIServer(t *testing.T) {
	crds := kubecheck.CRDDir(t)
	s := kubecheck.StartAPIServer(t)
	t.Setenv("KUBECONFIG", s.WriteKubeconfig(t))
	k := kube.Kubectl{Bin: s.KubectlPath()}
	ctx := context.Background()
	if _, err := k.Run(ctx, "apply", "--server-side", "-f", crds); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(ctx, "wait", "--for=condition=Established", "crd", "--all", "--timeout=120s"); err != nil {
		t.Fatal(err)
	}
	out := renderSeed(t)

	var stdout, stderr bytes.Buffer
	if code := cli.Run(ctx, []string{"up", out, "--kubernetes", "--dry-run", "--kubectl", s.KubectlPath()}, &stdout, &stderr); code != 0 {
		t.Fatalf("up --kubernetes --dry-run: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "The cluster accepts the lab") || !strings.Contains(stderr.String(), "(server dry run)") {
		t.Errorf("up --dry-run said:\n%s%s", stdout.String(), stderr.String())
	}

	base, err := kube.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.Apply(ctx, k, false); err != nil {
		t.Fatal(err)
	}
	states, err := base.States(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]kube.State{}
	for _, st := range states {
		byName[st.Kind+"/"+st.Name] = st
	}
	for _, want := range []string{"StatefulSet/mysql", "Deployment/console", "Job/clickhouse-init", "Kafka/kafka", "FlinkDeployment/flink", "FlinkDeployment/job-order-wide"} {
		st, ok := byName[want]
		if !ok {
			t.Errorf("no state for %s; got %v", want, states)
		} else if st.Ready {
			t.Errorf("%s is ready with nothing running", st)
		}
	}
	// What the StatefulSet controller would write.
	if _, err := k.Run(ctx, "patch", "statefulset", "mysql", "-n", base.Namespace, "--subresource=status", "--type=merge",
		"-p", `{"status":{"replicas":1,"readyReplicas":1,"availableReplicas":1}}`); err != nil {
		t.Fatal(err)
	}
	// What the Flink operator would write.
	if _, err := k.Run(ctx, "patch", "flinkdeployment", "flink", "-n", base.Namespace, "--subresource=status", "--type=merge",
		"-p", `{"status":{"jobManagerDeploymentStatus":"READY"}}`); err != nil {
		t.Fatal(err)
	}
	states, err = base.States(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		switch st.Kind + "/" + st.Name {
		case "StatefulSet/mysql", "FlinkDeployment/flink":
			if !st.Ready {
				t.Errorf("%s: not ready after its controller's status", st)
			}
		}
	}

	// Experiment 06's interruption: a TaskManager pod of the streaming
	// job's cluster (as the operator labels them) goes, and stopping a
	// StatefulSet scales it to nothing.
	// No controller manager creates the namespace's default service
	// account, which a pod needs.
	if _, err := k.Run(ctx, "create", "serviceaccount", "default", "-n", base.Namespace); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(ctx, "run", "job-order-wide-taskmanager-1", "-n", base.Namespace, "--image=flink", "--restart=Never",
		"--labels=app=job-order-wide,component=taskmanager"); err != nil {
		t.Fatal(err)
	}
	svc := base.Services(k)
	if out, err := svc.Service(ctx, "stop", "taskmanager"); err != nil || !strings.Contains(out, `pod "job-order-wide-taskmanager-1" deleted`) {
		t.Errorf("stop taskmanager: %q, %v", out, err)
	}
	if out, err := svc.Service(ctx, "stop", "taskmanager"); err == nil {
		t.Errorf("stop taskmanager with none running: %q", out)
	}
	if _, err := svc.Service(ctx, "stop", "mysql"); err != nil {
		t.Fatal(err)
	}
	if out, _ := k.Run(ctx, "get", "statefulset", "mysql", "-n", base.Namespace, "-o", "jsonpath={.spec.replicas}"); string(out) != "0" {
		t.Errorf("stop mysql: replicas %q", out)
	}
	if _, err := svc.Service(ctx, "stop", "kafka"); err == nil || !strings.Contains(err.Error(), "neither a StatefulSet nor a Deployment") {
		t.Errorf("stop kafka: %v", err)
	}

	var progress []string
	err = base.Wait(ctx, k, 2*time.Second, 500*time.Millisecond, func(line string) { progress = append(progress, line) })
	if err == nil || !strings.Contains(err.Error(), "kafka/kafka: not ready") || strings.Contains(err.Error(), "statefulset/mysql") {
		t.Errorf("Wait: %v", err)
	}
	if len(progress) < len(states) {
		t.Errorf("Wait printed %d lines for %d objects", len(progress), len(states))
	}

	stdout.Reset()
	stderr.Reset()
	if code := cli.Run(ctx, []string{"down", out, "--kubernetes", "--kubectl", s.KubectlPath()}, &stdout, &stderr); code != 0 {
		t.Fatalf("down --kubernetes: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	got, err := k.Run(ctx, "get", "statefulsets,deployments,kafkas.kafka.strimzi.io", "-n", base.Namespace, "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	// Deletion of objects without finalizers is immediate; the namespace
	// itself goes with the base, and is terminating.
	if strings.TrimSpace(string(got)) != "" {
		t.Errorf("left after down:\n%s", got)
	}
}
