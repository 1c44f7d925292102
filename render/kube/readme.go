package kube

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/render"
)

// readme is kubernetes/README.md: how to run this lab's base, and what
// differs from the compose lab's runbook.
func (r *renderer) readme() {
	ns := r.namespace()
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s -->\n", strings.TrimSpace(strings.TrimPrefix(header(r.l), "# ")))
	fmt.Fprintf(&b, "# The lab %q on Kubernetes\n\n", r.l.Name)
	fmt.Fprintf(&b, "A kustomize base of the same lab as `../compose.yaml`, in the namespace `%s`. It needs\n", ns)
	fmt.Fprintf(&b, "the Strimzi operator %s and the Flink Kubernetes Operator %s watching that namespace\n", StrimziVersion, FlinkOperatorVersion)
	b.WriteString("(the latter creates its `flink` service account there), and a ReadWriteMany storage class\n")
	b.WriteString("for the claims of `storage.yaml`.\n\n")
	b.WriteString("## Images\n\nBuild them as for compose, then push them where the cluster pulls from and point an\n")
	b.WriteString("overlay at them (`kustomize edit set image NAME=REGISTRY/NAME:TAG`):\n\n")
	for _, im := range r.images() {
		m := im.(M)
		fmt.Fprintf(&b, "- `%s:%s`\n", m["name"], m["newTag"])
	}
	b.WriteString("\n`flink-image/` adds the SQL runner to the compose render's Flink image (build that first:\n")
	b.WriteString("`docker compose build jobmanager` in the lab directory).\n\n")
	b.WriteString("## Up and down\n\n```sh\n")
	fmt.Fprintf(&b, "labgen up OUT --kubernetes      # kubectl apply -k OUT/kubernetes, then waits until ready\nlabgen down OUT --kubernetes\n```\n\n")
	b.WriteString("## What differs from the runbook\n\n")
	if r.l.Stack.Flink != nil {
		fmt.Fprintf(&b, "- Each streaming job is a FlinkDeployment of its own (`kubectl get flinkdeployments -n %s`):\n", ns)
		b.WriteString("  the operator keeps it running, upgrades it through a savepoint and restores it from its\n")
		b.WriteString("  checkpoints. Statements sent to the SQL gateway run on the session cluster `" + SessionName + "`; the\n")
		b.WriteString("  operator does not track the jobs they start.\n")
		b.WriteString("- A step that stops a TaskManager: delete one of its pods (`kubectl delete pod -l component=taskmanager,app=job-…`).\n")
	}
	if r.l.Stack.Kafka != nil {
		fmt.Fprintf(&b, "- Kafka is at `%s` inside the cluster; Strimzi's Topic Operator creates the topics.\n", Face.Kafka)
	}
	fmt.Fprintf(&b, "- Nothing is published on 127.0.0.1: `kubectl port-forward -n %s svc/NAME PORT`, then\n", ns)
	b.WriteString("  `labgen run OUT --no-up` with `--mysql`, `--clickhouse`, `--flink`, `--gateway` pointing there.\n")
	fmt.Fprintf(&b, "- Memory: each container's request and limit is its compose limit (`labgen render` prints the\n  budget); Flink's pods get the lab's JobManager and TaskManager process sizes (%s).\n", flinkSizes(r))
	r.out[Dir+"README.md"] = []byte(b.String())
}

func flinkSizes(r *renderer) string {
	if r.l.Stack.Flink == nil {
		return "no Flink"
	}
	jm, tm := render.FlinkProcessMB(r.l)
	return fmt.Sprintf("%d MiB and %d MiB", jm, tm)
}
