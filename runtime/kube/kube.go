// Package kube brings a lab's Kubernetes base (OUT/kubernetes/, from
// labgen render --target kubernetes) up and down with kubectl, and waits
// until its workloads and the operators' resources are ready.
package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/labgen/labgen/internal/proc"
)

// Kubectl runs kubectl with fixed leading arguments (--context, --server, …).
type Kubectl struct {
	// Bin is kubectl's path; "" means kubectl from PATH.
	Bin  string
	Args []string
}

// Run runs kubectl and returns its standard output; an error carries its
// standard error.
func (k Kubectl) Run(ctx context.Context, args ...string) ([]byte, error) {
	return k.RunInput(ctx, nil, args...)
}

// RunInput is Run with stdin as kubectl's standard input.
func (k Kubectl) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := k.command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (k Kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	bin := k.Bin
	if bin == "" {
		bin = "kubectl"
	}
	return exec.CommandContext(ctx, bin, append(append([]string(nil), k.Args...), args...)...)
}

// Base is the Kubernetes base of a rendered lab directory.
type Base struct {
	Dir       string
	Namespace string
}

// Open finds the base of the rendered lab directory out.
func Open(out string) (*Base, error) {
	dir := filepath.Join(out, "kubernetes")
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, fmt.Errorf("%s has no Kubernetes base: render it with labgen render LAB -o %s --target kubernetes", out, out)
	}
	var k struct {
		Namespace string `json:"namespace"`
	}
	if err := yaml.Unmarshal(b, &k); err != nil || k.Namespace == "" {
		return nil, fmt.Errorf("%s: no namespace in kustomization.yaml", dir)
	}
	return &Base{Dir: dir, Namespace: k.Namespace}, nil
}

// Apply applies the base (server-side); with dryRun the server checks
// everything and stores nothing. It returns kubectl's report.
func (b *Base) Apply(ctx context.Context, k Kubectl, dryRun bool) (string, error) {
	args := []string{"apply", "--server-side", "--field-manager=labgen", "--validate=strict", "-k", b.Dir}
	if dryRun {
		args = append(args, "--dry-run=server")
	}
	out, err := k.Run(ctx, args...)
	return string(out), err
}

// Delete deletes the base's objects (as kubectl kustomize builds them)
// except its Namespace: what else lives there stays, the Flink
// operator's service account flink and its RBAC (made by the operator's
// Helm chart) among them, so that the next up finds them. The volume
// claims (the base's shared ones, the StatefulSets' and Strimzi's) are
// kept too, unless volumes: then every claim of the namespace goes.
func (b *Base) Delete(ctx context.Context, k Kubectl, volumes bool) (string, error) {
	built, err := k.Run(ctx, "kustomize", b.Dir)
	if err != nil {
		return "", err
	}
	docs, err := splitDocs(built)
	if err != nil {
		return "", err
	}
	var del bytes.Buffer
	for _, d := range docs {
		if d.kind == "Namespace" || d.kind == "PersistentVolumeClaim" && !volumes {
			continue
		}
		del.WriteString("---\n")
		del.Write(d.text)
	}
	var report string
	if del.Len() > 0 {
		out, err := k.RunInput(ctx, del.Bytes(), "delete", "-f", "-", "--ignore-not-found", "--wait=false")
		report = string(out)
		if err != nil {
			return report, err
		}
	}
	if !volumes {
		return report, nil
	}
	// The claims of the StatefulSets' templates and of Strimzi's node
	// pool are no objects of the base.
	more, err := k.Run(ctx, "delete", "pvc", "--all", "-n", b.Namespace, "--ignore-not-found", "--wait=false")
	return report + string(more), err
}

// doc is one object of a multi-document YAML stream.
type doc struct {
	kind, name string
	text       []byte
}

// splitDocs splits kubectl kustomize's output into its objects.
func splitDocs(stream []byte) ([]doc, error) {
	var out []doc
	for _, part := range bytes.Split(append([]byte("\n"), stream...), []byte("\n---\n")) {
		if len(bytes.TrimSpace(part)) == 0 {
			continue
		}
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(part, &o); err != nil {
			return nil, fmt.Errorf("reading the built base: %w", err)
		}
		if o.Kind == "" {
			continue
		}
		text := bytes.TrimLeft(part, "\n")
		if !bytes.HasSuffix(text, []byte("\n")) {
			text = append(text, '\n')
		}
		out = append(out, doc{kind: o.Kind, name: o.Metadata.Name, text: text})
	}
	return out, nil
}

// watched are the kinds whose readiness Wait follows.
const watched = "statefulsets,deployments,jobs,kafkas.kafka.strimzi.io,flinkdeployments.flink.apache.org"

// State is one object's readiness.
type State struct {
	Kind, Name string
	Ready      bool
	// Detail says how far it is ("1/3 ready", "job RUNNING").
	Detail string
}

func (s State) String() string {
	return fmt.Sprintf("%s/%s: %s", strings.ToLower(s.Kind), s.Name, s.Detail)
}

// States reads the readiness of the base's objects from the server.
func (b *Base) States(ctx context.Context, k Kubectl) ([]State, error) {
	out, err := k.Run(ctx, "get", watched, "-n", b.Namespace, "-o", "json")
	if err != nil {
		return nil, err
	}
	return ParseStates(out)
}

// ParseStates reads `kubectl get … -o json` (a List).
func ParseStates(list []byte) ([]State, error) {
	var l struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		return nil, fmt.Errorf("reading kubectl's list: %w", err)
	}
	var out []State
	for _, o := range l.Items {
		out = append(out, state(o))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func field(o map[string]any, path ...string) any {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func num(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return 0
}

func str(v any) string { s, _ := v.(string); return s }

// state is the readiness of one object as its controller reports it.
func state(o map[string]any) State {
	s := State{Kind: str(o["kind"]), Name: str(field(o, "metadata", "name"))}
	switch s.Kind {
	case "StatefulSet", "Deployment":
		want := 1
		if r, ok := field(o, "spec", "replicas").(float64); ok {
			want = int(r)
		}
		ready := num(field(o, "status", "readyReplicas"))
		s.Ready = ready >= want
		s.Detail = fmt.Sprintf("%d/%d ready", ready, want)
	case "Job":
		s.Ready = num(field(o, "status", "succeeded")) > 0
		s.Detail = "running"
		if s.Ready {
			s.Detail = "done"
		} else if f := num(field(o, "status", "failed")); f > 0 {
			s.Detail = fmt.Sprintf("%d failed attempt(s)", f)
		}
	case "Kafka":
		s.Detail = "not ready"
		conds, _ := field(o, "status", "conditions").([]any)
		for _, c := range conds {
			c, _ := c.(map[string]any)
			if str(c["type"]) == "Ready" && str(c["status"]) == "True" {
				s.Ready, s.Detail = true, "ready"
			} else if str(c["type"]) == "NotReady" && str(c["message"]) != "" {
				s.Detail = "not ready: " + str(c["message"])
			}
		}
	case "FlinkDeployment":
		jm := str(field(o, "status", "jobManagerDeploymentStatus"))
		job := str(field(o, "status", "jobStatus", "state"))
		hasJob := field(o, "spec", "job") != nil
		s.Ready = jm == "READY" && (!hasJob || job == "RUNNING")
		s.Detail = "jobmanager " + strings.ToLower(orDash(jm))
		if hasJob {
			s.Detail += ", job " + strings.ToLower(orDash(job))
		}
		if e := str(field(o, "status", "error")); e != "" && !s.Ready {
			s.Detail += ": " + firstLine(e)
		}
	default:
		s.Detail = "unknown kind"
	}
	if s.Ready && s.Kind != "Job" && s.Kind != "FlinkDeployment" {
		s.Detail = "ready"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 160 {
		line = line[:160] + "…"
	}
	return line
}

// Wait polls until every object is ready, printing each change of
// state through progress, or until timeout; the error then lists what is
// not ready.
func (b *Base) Wait(ctx context.Context, k Kubectl, timeout, interval time.Duration, progress func(string)) error {
	last := map[string]string{}
	var states []State
	var waiting []string
	err := proc.Poll(ctx, time.Now().Add(timeout), proc.Pace{Interval: interval}, nil, func(context.Context) error {
		var err error
		if states, err = b.States(ctx, k); err != nil {
			return proc.Final(err)
		}
		waiting = nil
		for _, s := range states {
			id := s.Kind + "/" + s.Name
			if last[id] != s.Detail {
				progress(s.String())
				last[id] = s.Detail
			}
			if !s.Ready {
				waiting = append(waiting, s.String())
			}
		}
		if len(states) > 0 && len(waiting) == 0 {
			return nil
		}
		return errNotReady
	})
	var late *proc.Late
	if errors.As(err, &late) {
		if len(states) == 0 {
			return fmt.Errorf("nothing of the lab is in namespace %s after %s", b.Namespace, timeout)
		}
		return fmt.Errorf("not ready after %s:\n  %s", timeout, strings.Join(waiting, "\n  "))
	}
	return err
}

var errNotReady = errors.New("not every object is ready")
