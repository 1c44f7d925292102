package kube_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
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
// is not ready; labgen down --kubernetes deletes it but for its namespace
// and claims, and --volumes the claims too.
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

	// What the Flink operator's Helm chart creates in each namespace it
	// watches, and claims as the StatefulSet controller and Strimzi make
	// them from their templates (no controller runs here).
	if _, err := k.Run(ctx, "create", "serviceaccount", "flink", "-n", base.Namespace); err != nil {
		t.Fatal(err)
	}
	for _, claim := range []string{"data-mysql-0", "data-0-kafka-dual-role-0"} {
		pvc := `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"` + claim + `","namespace":"` + base.Namespace + `"},
			"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`
		if _, err := k.RunInput(ctx, []byte(pvc), "create", "-f", "-"); err != nil {
			t.Fatal(err)
		}
	}
	claims := []string{"data-0-kafka-dual-role-0", "data-mysql-0", "flink-checkpoints", "warehouse"}

	// down: the base's objects go; the namespace, the operator's service
	// account and every claim stay, as down says.
	labObjects := func() string {
		got, err := k.Run(ctx, "get", "statefulsets,deployments,jobs,services,configmaps,secrets,kafkas.kafka.strimzi.io,kafkanodepools.kafka.strimzi.io,kafkatopics.kafka.strimzi.io,flinkdeployments.flink.apache.org",
			"-n", base.Namespace, "-l", "app.kubernetes.io/part-of=labgen-orders", "-o", "name")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(got))
	}
	if before := labObjects(); strings.Count(before, "\n") < 20 {
		t.Fatalf("before down, the lab's objects are:\n%s", before)
	}
	stdout.Reset()
	stderr.Reset()
	if code := cli.Run(ctx, []string{"down", out, "--kubernetes", "--kubectl", s.KubectlPath()}, &stdout, &stderr); code != 0 {
		t.Fatalf("down --kubernetes: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "its volume claims are kept") {
		t.Errorf("down said: %s", stdout.String())
	}
	// Deletion of objects without finalizers is immediate.
	if left := labObjects(); left != "" {
		t.Errorf("left after down:\n%s", left)
	}
	if phase, err := k.Run(ctx, "get", "namespace", base.Namespace, "-o", "jsonpath={.status.phase}"); err != nil || string(phase) != "Active" {
		t.Errorf("namespace after down: %q, %v", phase, err)
	}
	if _, err := k.Run(ctx, "get", "serviceaccount", "flink", "-n", base.Namespace); err != nil {
		t.Errorf("the operator's service account went with down: %v", err)
	}
	if got := liveClaims(t, k, base.Namespace); strings.Join(got, " ") != strings.Join(claims, " ") {
		t.Errorf("claims after down: %v, want %v", got, claims)
	}

	// up again finds the namespace as it was.
	if _, err := base.Apply(ctx, k, false); err != nil {
		t.Fatalf("apply after down: %v", err)
	}

	// down --volumes: the claims go too (they keep the protection
	// finalizer that no controller here removes: deleted, not gone); the
	// namespace stays.
	stdout.Reset()
	stderr.Reset()
	if code := cli.Run(ctx, []string{"down", out, "--kubernetes", "--volumes", "--kubectl", s.KubectlPath()}, &stdout, &stderr); code != 0 {
		t.Fatalf("down --kubernetes --volumes: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if got := liveClaims(t, k, base.Namespace); len(got) != 0 {
		t.Errorf("claims after down --volumes: %v", got)
	}
	if _, err := k.Run(ctx, "get", "serviceaccount", "flink", "-n", base.Namespace); err != nil {
		t.Errorf("the operator's service account went with down --volumes: %v", err)
	}
}

// liveClaims are the namespace's volume claims that are not being
// deleted, sorted.
func liveClaims(t *testing.T, k kube.Kubectl, ns string) []string {
	t.Helper()
	b, err := k.Run(context.Background(), "get", "pvc", "-n", ns, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Items []struct {
			Metadata struct {
				Name              string  `json:"name"`
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range l.Items {
		if it.Metadata.DeletionTimestamp == nil {
			out = append(out, it.Metadata.Name)
		}
	}
	sort.Strings(out)
	return out
}

// pause and unpause are refused before kubectl is asked anything, with
// the operator route named.
func TestNoPauseOnKubernetes(t *testing.T) {
	svc := &kube.Services{K: kube.Kubectl{Bin: "/nonexistent/kubectl"}, Namespace: "lab"}
	for _, a := range []string{"pause", "unpause"} {
		_, err := svc.Service(context.Background(), a, "taskmanager")
		if err == nil || !strings.Contains(err.Error(), a+" taskmanager: no such action on Kubernetes") || !strings.Contains(err.Error(), "PodChaos (action pod-failure)") {
			t.Errorf("%s: %v", a, err)
		}
	}
}
