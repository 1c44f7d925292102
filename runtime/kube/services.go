package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Services runs a lab's compose steps (stop, start, restart a service)
// on its Kubernetes base, for labgen run: a TaskManager is a pod of a
// streaming job's Flink cluster, which the operator's TaskManager
// Deployment brings back; any other service is its StatefulSet or
// Deployment, scaled to 0 and back to 1. pause and unpause are refused
// (see errNoPause).
type Services struct {
	K         Kubectl
	Namespace string
}

// Services of the base.
func (b *Base) Services(k Kubectl) *Services { return &Services{K: k, Namespace: b.Namespace} }

// Command is how a step's command reads in the record.
func (s *Services) Command(args ...string) string {
	return "kubectl -n " + s.Namespace + " " + strings.Join(args, " ")
}

func (s *Services) run(ctx context.Context, args ...string) (string, error) {
	out, err := s.K.Run(ctx, append([]string{"-n", s.Namespace}, args...)...)
	return strings.TrimSpace(string(out)), err
}

// errNoPause is the answer to pause and unpause: kubectl has nothing
// like docker pause, and freezing a pod takes a chaos operator.
const errNoPause = "%s %s: no such action on Kubernetes: kubectl cannot freeze a pod's processes; " +
	"Chaos Mesh's PodChaos (action pod-failure) is the operator's route to such a fault, and labgen does not render it yet"

// Service carries out a compose step's action on a service.
func (s *Services) Service(ctx context.Context, action, service string) (string, error) {
	if action == "pause" || action == "unpause" {
		return "", fmt.Errorf(errNoPause, action, service)
	}
	if service == "taskmanager" || strings.HasPrefix(service, "taskmanager-") {
		return s.taskManager(ctx, action)
	}
	kind, err := s.workloadKind(ctx, service)
	if err != nil {
		return "", err
	}
	ref := kind + "/" + service
	switch action {
	case "stop":
		return s.run(ctx, "scale", ref, "--replicas=0")
	case "start":
		if out, err := s.run(ctx, "scale", ref, "--replicas=1"); err != nil {
			return out, err
		}
		return s.run(ctx, "rollout", "status", ref, "--timeout=5m")
	case "restart":
		if out, err := s.run(ctx, "rollout", "restart", ref); err != nil {
			return out, err
		}
		return s.run(ctx, "rollout", "status", ref, "--timeout=5m")
	}
	return "", fmt.Errorf("%s %s: no such action on Kubernetes", action, service)
}

// workloadKind tells whether the service is a StatefulSet or a Deployment.
func (s *Services) workloadKind(ctx context.Context, service string) (string, error) {
	for _, kind := range []string{"statefulset", "deployment"} {
		if _, err := s.run(ctx, "get", kind, service, "-o", "name"); err == nil {
			return kind, nil
		}
	}
	return "", fmt.Errorf("%s is neither a StatefulSet nor a Deployment in %s (Strimzi and the Flink operator run Kafka and Flink)", service, s.Namespace)
}

// jobCluster is the first streaming job's FlinkDeployment (job-…), whose
// TaskManagers run the lab's pipeline.
func (s *Services) jobCluster(ctx context.Context) (string, error) {
	out, err := s.run(ctx, "get", "flinkdeployments.flink.apache.org", "-o", "name")
	if err != nil {
		return "", err
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		name := line[strings.LastIndex(line, "/")+1:]
		if strings.HasPrefix(name, "job-") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no streaming job's FlinkDeployment (job-…) in %s", s.Namespace)
	}
	sort.Strings(names)
	return names[0], nil
}

// taskManager stops a TaskManager by deleting one pod of the job
// cluster's (its Deployment starts another, as a crashed worker comes
// back); start waits until the TaskManagers are all available again.
func (s *Services) taskManager(ctx context.Context, action string) (string, error) {
	cluster, err := s.jobCluster(ctx)
	if err != nil {
		return "", err
	}
	switch action {
	case "stop", "restart":
		out, err := s.run(ctx, "get", "pods", "-l", "app="+cluster+",component=taskmanager", "-o", "json")
		if err != nil {
			return out, err
		}
		var l struct {
			Items []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			return "", err
		}
		if len(l.Items) == 0 {
			return "", fmt.Errorf("no TaskManager pod of %s runs", cluster)
		}
		names := make([]string, len(l.Items))
		for i, it := range l.Items {
			names[i] = it.Metadata.Name
		}
		sort.Strings(names)
		return s.run(ctx, "delete", "pod", names[0], "--wait=false")
	case "start":
		return s.run(ctx, "rollout", "status", "deployment/"+cluster+"-taskmanager", "--timeout=5m")
	}
	return "", fmt.Errorf("%s taskmanager: no such action on Kubernetes", action)
}
