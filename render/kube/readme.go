package kube

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/render"
)

// readme is kubernetes/README.md: how to take this lab from an empty
// cluster to a run, and what differs from the compose lab's runbook.
func (r *renderer) readme() {
	ns := r.namespace()
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- %s -->\n", strings.TrimSpace(strings.TrimPrefix(header(r.l), "# ")))
	p("# The lab %q on Kubernetes\n\n", r.l.Name)
	p("A kustomize base of the same lab as `../compose.yaml`, in the namespace `%s`, for the\n", ns)
	p("Strimzi operator %s and the Flink Kubernetes Operator %s.\n\n", StrimziVersion, FlinkOperatorVersion)
	p("**Resources:** the running objects request %.1f GiB of memory (%d MiB; each container's\n", float64(r.requestMB)/1024, r.requestMB)
	p("request is its limit; Flink's pods get the lab's JobManager and TaskManager process sizes,\n%s),\n", flinkSizes(r))
	b.WriteString("plus the operators (about 1 GiB). Storage: ")
	if r.opts.SingleNode {
		b.WriteString("the shared claims of `storage.yaml` are ReadWriteOnce\n(rendered with `-single-node`): every pod that mounts them must run on one node.\n\n")
	} else {
		b.WriteString("the shared claims of `storage.yaml` are ReadWriteMany\n(the warehouse and Flink's checkpoints are mounted by several pods at once); on a one-node\ncluster (kind, minikube) render with `-single-node`.\n\n")
	}

	p("## 1. The namespace and the operators\n\nThe namespace first: the Flink operator's chart creates its `flink` service account in each\nnamespace it watches.\n\n```sh\n")
	p("kubectl create namespace %s\n", ns)
	p("helm repo add strimzi https://strimzi.io/charts/\n")
	p("helm install strimzi strimzi/strimzi-kafka-operator --version %s -n strimzi --create-namespace \\\n  --set watchNamespaces=\"{%s}\"\n", StrimziVersion, ns)
	p("helm repo add flink-operator https://downloads.apache.org/flink/flink-kubernetes-operator-%s/\n", FlinkOperatorVersion)
	p("helm install flink-kubernetes-operator flink-operator/flink-kubernetes-operator -n flink --create-namespace \\\n  --set webhook.create=false --set watchNamespaces=\"{%s}\"\n```\n\n", ns)

	p("## 2. The images\n\nThe lab's own images are built from this directory and are in no public registry:\n\n")
	for _, im := range r.images() {
		m := im.(M)
		name := fmt.Sprint(m["name"])
		if n, ok := m["newName"]; ok {
			name = fmt.Sprint(n)
		}
		p("- `%s:%s`\n", name, m["newTag"])
	}
	b.WriteString("\n```sh\n")
	b.WriteString("docker compose build                       # in the lab directory: the compose images\n")
	for _, im := range r.images() {
		m := im.(M)
		if strings.Contains(fmt.Sprint(m["name"]), "-flink-k8s") {
			p("docker build -t %s:%s kubernetes/flink-image   # + the SQL runner\n", m["name"], m["newTag"])
		}
	}
	b.WriteString("# kind: load them into the cluster's node\n")
	for _, im := range r.images() {
		m := im.(M)
		p("kind load docker-image %s:%s\n", m["name"], m["newTag"])
	}
	b.WriteString("# or a registry: render with -registry REGISTRY, then tag and push each\n")
	b.WriteString("#   docker tag NAME:TAG REGISTRY/NAME:TAG && docker push REGISTRY/NAME:TAG\n```\n\n")

	b.WriteString("## 3. Up, run, down\n\n```sh\n")
	b.WriteString("labgen up OUT --kubernetes         # kubectl apply --server-side -k OUT/kubernetes, then waits until ready\n")
	b.WriteString("labgen run OUT --kubernetes --no-up   # the experiments, through port-forwards labgen opens and closes\n")
	b.WriteString("labgen down OUT --kubernetes       # the lab's objects; the namespace, its claims and the operators' account stay\n```\n\n")
	b.WriteString("An overlay of your own (`resources: [../kubernetes]`) may set another namespace and the\n")
	b.WriteString("images; not a `namePrefix`: the lab's SQL and configuration reach the services by their\n")
	b.WriteString("Services' names, which a prefix changes.\n\n")

	b.WriteString("## What differs from the runbook\n\n")
	if r.l.Stack.Flink != nil {
		p("- Each streaming job is a FlinkDeployment of its own (`kubectl get flinkdeployments -n %s`):\n", ns)
		b.WriteString("  the operator keeps it running (a failed job is restarted), upgrades it through a savepoint,\n")
		b.WriteString("  and a lost JobManager comes back from the latest checkpoint (Kubernetes HA on the checkpoint\n")
		b.WriteString("  volume). Its pods wait for what the job reads before it starts. Statements sent to the SQL\n")
		b.WriteString("  gateway run on the session cluster `" + SessionName + "`; the operator does not track the jobs they start.\n")
		if _, ok := r.face[render.LakeTablesFile]; ok {
			p("- The lake tables are created once by the Job `%s`, before any job starts.\n", r.lakeTablesJob())
		}
		b.WriteString("- A step that stops a TaskManager deletes one of its pods (`kubectl delete pod -l component=taskmanager,app=job-…`).\n")
	}
	if r.l.Stack.Kafka != nil {
		p("- Kafka is at `%s` inside the cluster; Strimzi's Topic Operator creates the topics.\n", Face.Kafka)
	}
	p("- Nothing is published on 127.0.0.1: `labgen run --kubernetes` port-forwards what its steps\n  read; by hand, `kubectl port-forward -n %s svc/NAME PORT`.\n", ns)
	r.out[Dir+"README.md"] = []byte(b.String())
}

func flinkSizes(r *renderer) string {
	if r.l.Stack.Flink == nil {
		return "no Flink"
	}
	jm, tm := render.FlinkProcessMB(r.l)
	return fmt.Sprintf("%d MiB and %d MiB", jm, tm)
}
