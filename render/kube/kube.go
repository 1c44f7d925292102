// Package kube renders a lab for Kubernetes: a kustomize base under
// kubernetes/ of the lab directory, with Kafka run by Strimzi, Flink by
// the Flink Kubernetes Operator, and the other services as StatefulSets,
// Deployments and Jobs.
//
// It is one more face of the lab, not another description of the stack:
// each workload is a compose service of the same render (its image,
// command, environment, health check), sized by the compose render's
// memory budget, with the Flink job SQL and engine DDL of a Kubernetes
// face (render.FaceFiles) whose addresses are the Services below.
package kube

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// Dir is where the base lives in the lab directory.
const Dir = "kubernetes/"

// Operator versions the render targets (their CRDs are what prove/kube
// pins and the tests validate against).
const (
	StrimziVersion       = "1.2.0"
	FlinkOperatorVersion = "1.10.0"
	// FlinkVersion is the operator's name of the lab's Flink release.
	FlinkVersion = "v1_20"
)

// Names of the objects the render creates and the others refer to.
const (
	KafkaCluster  = "kafka"
	NodePool      = "dual-role"
	SessionName   = "flink"
	SecretName    = "lab-env"
	LabFiles      = "lab-files"
	FlinkSQL      = "flink-sql"
	WarehousePVC  = "warehouse"
	CheckpointPVC = "flink-checkpoints"
	// ServiceAccount is the one the operator's Helm chart creates in each
	// namespace it watches.
	ServiceAccount = "flink"
)

// Face is where the services find each other in the cluster: by the
// names of their Services, Kafka through Strimzi's bootstrap Service.
var Face = render.Face{
	Name:      "kubernetes",
	MySQL:     "mysql:3306",
	Postgres:  "postgres:5432",
	Kafka:     KafkaCluster + "-kafka-bootstrap:9092",
	Fluss:     "coordinator-server:9123",
	Warehouse: render.WarehouseDir,
}

// Options tune the Kubernetes render.
type Options struct {
	// Brokers is the number of Kafka brokers (KRaft, each also a
	// controller); 0 means 1.
	Brokers int
	// StorageClass names the storage class of the shared claims (the
	// warehouse, Flink's checkpoints); "" is the cluster's default.
	StorageClass string
	// SingleNode makes the shared claims ReadWriteOnce: every pod that
	// mounts them runs on the one node of kind or minikube, whose
	// local-path provisioners refuse ReadWriteMany. On a cluster of
	// several nodes the shared claims need ReadWriteMany.
	SingleNode bool
	// Registry is where the cluster pulls the lab's own images from
	// (REGISTRY/NAME:TAG); "" leaves their names as built.
	Registry string
}

// AccessMode is the shared claims' access mode.
func (o Options) AccessMode() string {
	if o.SingleNode {
		return "ReadWriteOnce"
	}
	return "ReadWriteMany"
}

// M is a Kubernetes object or part of one; sigs.k8s.io/yaml writes its
// keys sorted, so that the output is deterministic.
type M = map[string]any

// Target is the render.Target of the Kubernetes face.
func Target(opts Options) render.Target {
	return func(l *schemas.Lab, files render.Files) (render.Files, error) { return Render(l, files, opts) }
}

// Render writes the kustomize base from the lab and the compose render's
// files.
func Render(l *schemas.Lab, files render.Files, opts Options) (render.Files, error) {
	if opts.Brokers < 1 {
		opts.Brokers = 1
	}
	services, err := readCompose(files["compose.yaml"])
	if err != nil {
		return nil, err
	}
	face, err := render.FaceFiles(l, Face)
	if err != nil {
		return nil, err
	}
	r := &renderer{l: l, files: files, face: face, services: services, opts: opts, out: render.Files{},
		memory: map[string]int{}}
	for _, m := range render.MemoryBudget(l) {
		r.memory[m.Service] = m.MB
	}
	if err := r.render(); err != nil {
		return nil, err
	}
	return r.out, nil
}

type renderer struct {
	l        *schemas.Lab
	files    render.Files
	face     render.Files
	services map[string]service
	opts     Options
	memory   map[string]int
	out      render.Files
	// resources lists the base's files for kustomization.yaml.
	resources []string
	// extraLabFiles are files other than SQL that services bind.
	extraLabFiles []string
	// requestMB is the memory the emitted objects request, running.
	requestMB int
}

// emit writes objects into one file of the base.
func (r *renderer) emit(name, comment string, objs ...M) error {
	var b bytes.Buffer
	b.WriteString(header(r.l))
	if comment != "" {
		for _, line := range strings.Split(strings.TrimSpace(comment), "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return fmt.Errorf("kube: encoding %s: %w", name, err)
		}
		b.Write(y)
	}
	r.out[Dir+name] = b.Bytes()
	r.resources = append(r.resources, name)
	for _, o := range objs {
		r.requestMB += requestMB(o)
	}
	return nil
}

// requestMB is the memory an object asks of the cluster once running,
// in MiB: its containers' requests times its replicas, a FlinkDeployment's
// JobManager and TaskManagers, a node pool's brokers (a Job's pods end).
// It adds the quantities' numbers (mebibytes, flinkMB), never their text.
func requestMB(o M) int {
	spec, _ := o["spec"].(M)
	mib := func(q any) int {
		switch n := q.(type) {
		case mebibytes:
			return int(n)
		case flinkMB:
			return int(n)
		}
		return 0
	}
	containers := func(pod M) int {
		total := 0
		cs, _ := pod["containers"].([]any)
		for _, c := range cs {
			if res, ok := c.(M)["resources"].(M); ok {
				if req, ok := res["requests"].(M); ok {
					total += mib(req["memory"])
				}
			}
		}
		return total
	}
	replicas := func(m M) int {
		if n, ok := m["replicas"].(int); ok {
			return n
		}
		return 1
	}
	switch o["kind"] {
	case "Deployment", "StatefulSet":
		return replicas(spec) * containers(spec["template"].(M)["spec"].(M))
	case "FlinkDeployment":
		total := 0
		for _, part := range []string{"jobManager", "taskManager"} {
			p := spec[part].(M)
			total += replicas(p) * mib(p["resource"].(M)["memory"])
		}
		return total
	case "KafkaNodePool":
		return replicas(spec) * mib(spec["resources"].(M)["requests"].(M)["memory"])
	}
	return 0
}

// mebibytes is a memory quantity of Kubernetes, written "<n>Mi".
type mebibytes int

func (m mebibytes) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprintf("%dMi", int(m))) }

// flinkMB is a FlinkDeployment's process memory, written "<n>m", which
// Flink's MemorySize reads as MiB.
type flinkMB int

func (m flinkMB) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprintf("%dm", int(m))) }

func header(l *schemas.Lab) string {
	return fmt.Sprintf("# Rendered by labgen from the lab %q. Do not edit: change the lab and render again.\n", l.Name)
}

func (r *renderer) namespace() string { return "labgen-" + strings.ReplaceAll(r.l.Name, "_", "-") }

func (r *renderer) render() error {
	s := r.l.Stack
	if err := r.emit("namespace.yaml", "", M{"apiVersion": "v1", "kind": "Namespace",
		"metadata": M{"name": r.namespace(), "labels": r.labels("")}}); err != nil {
		return err
	}
	if err := r.sharedStorage(); err != nil {
		return err
	}
	if s.Kafka != nil {
		if err := r.kafka(); err != nil {
			return err
		}
	}
	if s.Flink != nil {
		if err := r.flink(); err != nil {
			return err
		}
	}
	for _, name := range schemas.ServiceOrder() {
		if _, ok := r.services[name]; !ok || operated[name] {
			continue
		}
		if err := r.workload(name); err != nil {
			return err
		}
	}
	// Last: the workloads add the files they bind.
	if err := r.labFiles(); err != nil {
		return err
	}
	r.readme()
	return r.kustomization()
}

func (r *renderer) labels(component string) M {
	m := M{"app.kubernetes.io/part-of": "labgen-" + strings.ReplaceAll(r.l.Name, "_", "-"), "app.kubernetes.io/managed-by": "labgen"}
	if component != "" {
		m["app.kubernetes.io/name"] = component
	}
	return m
}

func meta(name string, labels M) M { return M{"name": name, "labels": labels} }

// memoryResources gives a container the compose limit of a service as
// both request and limit (the memory is reserved, as on a laptop).
func memoryResources(mb int) M {
	q := mebibytes(mb)
	return M{"requests": M{"memory": q, "cpu": "100m"}, "limits": M{"memory": q}}
}

// kustomization lists the base's files and generates the Secret of the
// lab's users and passwords from a copy of .env.
func (r *renderer) kustomization() error {
	r.out[Dir+"lab.env"] = envWithoutComments(r.files[".env"])
	sort.Strings(r.resources)
	k := M{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
		"namespace":  r.namespace(),
		"resources":  r.resources,
		"labels":     []any{M{"pairs": M{"app.kubernetes.io/part-of": "labgen-" + strings.ReplaceAll(r.l.Name, "_", "-")}}},
		"secretGenerator": []any{M{
			"name": SecretName,
			"envs": []any{"lab.env"},
		}},
		// The images the base names are built from this directory
		// (flink-image/, ../labgen/) and must be pushed where the cluster
		// pulls from: render -registry, or `kustomize edit set image
		// NAME=REGISTRY/NAME:TAG` in an overlay.
		"images": r.images(),
		// kustomize's name and image transformers know Kubernetes' own
		// kinds only: this teaches them the FlinkDeployment's fields, so
		// that the Secret's hash suffix, an overlay's prefix and its
		// registry reach the Flink pods too.
		"configurations": []any{KustomizeConfig},
	}
	r.out[Dir+KustomizeConfig] = []byte(header(r.l) + kustomizeConfig)
	y, err := yaml.Marshal(k)
	if err != nil {
		return err
	}
	r.out[Dir+"kustomization.yaml"] = append([]byte(header(r.l)), y...)
	return nil
}

// envWithoutComments is .env as kustomize's env file reader wants it.
func envWithoutComments(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(string(b), "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "COMPOSE_") {
			continue
		}
		out.WriteString(line + "\n")
	}
	return out.Bytes()
}

// images lists the images the base builds (name and tag) for the
// kustomization's images transformer, which an overlay points at a
// registry.
func (r *renderer) images() []any {
	seen := map[string]bool{}
	var out []any
	add := func(ref string) {
		name, tag, _ := strings.Cut(ref, ":")
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		m := M{"name": name, "newTag": tag}
		if r.opts.Registry != "" {
			m["newName"] = strings.TrimSuffix(r.opts.Registry, "/") + "/" + name
		}
		out = append(out, m)
	}
	if r.l.Stack.Flink != nil {
		add(r.flinkImage())
	}
	for _, name := range []string{"producer", "console"} {
		if svc, ok := r.services[name]; ok {
			add(svc.Image)
		}
	}
	return out
}

// labFiles is the ConfigMap the lab's own services (producer, console,
// the ClickHouse schema Job) see at /lab, as compose binds the directory:
// lab.json and the Kubernetes face's SQL.
func (r *renderer) labFiles() error {
	data := M{}
	for _, p := range r.allLabFiles() {
		data[configKey(p)] = string(r.fileOf(p))
	}
	return r.emit("lab-files.yaml", "What the lab's services read under /lab (compose binds the lab directory there).",
		M{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(LabFiles, r.labels("lab")), "data": data})
}

// labFilePaths are the files of the lab-files ConfigMap: lab.json and
// the SQL every service but Flink reads.
func (r *renderer) labFilePaths() []string {
	var out []string
	for _, p := range r.files.Paths() {
		if p == "lab.json" || (strings.HasPrefix(p, "sql/") && !strings.HasPrefix(p, "sql/flink/")) {
			out = append(out, p)
		}
	}
	return out
}

// fileOf is a rendered file, the Kubernetes face's where it has one.
func (r *renderer) fileOf(p string) []byte {
	if b, ok := r.face[p]; ok {
		return b
	}
	return r.files[p]
}

// configKey names a file in a ConfigMap, whose keys cannot hold "/".
func configKey(p string) string { return strings.ReplaceAll(p, "/", "__") }

func configItems(paths []string) []any {
	var out []any
	for _, p := range paths {
		out = append(out, M{"key": configKey(p), "path": p})
	}
	return out
}

// sharedStorage are the volumes several pods mount at once: the lake
// warehouse (Flink and Fluss) and Flink's checkpoints (every JobManager
// and TaskManager). They need a ReadWriteMany storage class, or one node
// (Options.SingleNode).
func (r *renderer) sharedStorage() error {
	var objs []M
	pvc := func(name, size string) M {
		spec := M{"accessModes": []any{r.opts.AccessMode()}, "resources": M{"requests": M{"storage": size}}}
		if r.opts.StorageClass != "" {
			spec["storageClassName"] = r.opts.StorageClass
		}
		return M{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(name, r.labels(name)), "spec": spec}
	}
	if r.l.Stack.Flink != nil {
		objs = append(objs, pvc(CheckpointPVC, "5Gi"))
	}
	if r.l.Stack.HasLakes() {
		objs = append(objs, pvc(WarehousePVC, "10Gi"))
	}
	if len(objs) == 0 {
		return nil
	}
	comment := "Volumes shared by several pods: they need a ReadWriteMany storage class (NFS, CephFS, a cloud file store)."
	if r.opts.SingleNode {
		comment = "Volumes shared by several pods: ReadWriteOnce (render -single-node), so every pod that mounts them must run on one node."
	}
	return r.emit("storage.yaml", comment, objs...)
}

// shortHash is the first 12 hex digits of the sha256 of the files.
func shortHash(files map[string][]byte) string {
	h := sha256.New()
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%d\x00", k, len(files[k]))
		h.Write(files[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// k8sName turns a name into a DNS label (topics and jobs may hold
// underscores).
func k8sName(s string) string {
	s = strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(s))
	return strings.Trim(s, "-")
}

func base(p string) string { return path.Base(p) }
