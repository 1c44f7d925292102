package kube

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Object is one object of the base as rendered (before kustomize adds
// its namespace, labels and name suffixes).
type Object = map[string]any

// Objects reads the objects of the base's resources (kustomization.yaml's
// resources, as rendered), without kubectl.
func (b *Base) Objects() ([]Object, error) {
	k, err := os.ReadFile(filepath.Join(b.Dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var kz struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(k, &kz); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(b.Dir, "kustomization.yaml"), err)
	}
	var out []Object
	for _, r := range kz.Resources {
		p := filepath.Join(b.Dir, filepath.FromSlash(r))
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, part := range bytes.Split(append([]byte("\n"), src...), []byte("\n---\n")) {
			var o Object
			if err := yaml.Unmarshal(part, &o); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if o != nil && str(o["kind"]) != "" {
				out = append(out, o)
			}
		}
	}
	return out, nil
}

func (b *Base) find(kind, name string) (Object, error) {
	objs, err := b.Objects()
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if str(o["kind"]) == kind && str(field(o, "metadata", "name")) == name {
			return o, nil
		}
	}
	return nil, nil
}

// ServicePort is the port of the base's Service name (the port named
// portName, or its first when portName is ""); ok is false when the
// base has no such Service or port.
func (b *Base) ServicePort(name, portName string) (port int, ok bool, err error) {
	o, err := b.find("Service", name)
	if err != nil || o == nil {
		return 0, false, err
	}
	ports, _ := field(o, "spec", "ports").([]any)
	for _, p := range ports {
		p, _ := p.(map[string]any)
		if portName == "" || str(p["name"]) == portName {
			return num(p["port"]), true, nil
		}
	}
	return 0, false, nil
}

// FlinkRESTPort is the port of the REST Service <cluster>-rest that the
// Flink operator makes for every FlinkDeployment.
const FlinkRESTPort = 8081

// FlinkClusters are the base's FlinkDeployments: Session is the one
// without a job (the SQL gateway's and the bounded jobs'); Jobs maps
// each streaming job of the lab (the name of its SQL file) to its
// application cluster; WithJob lists every cluster that runs a job
// (the streaming jobs' and the Fluss tiering job's), sorted.
type FlinkClusters struct {
	Session string
	Jobs    map[string]string
	WithJob []string
}

// RESTService is the Service of a FlinkDeployment's REST API.
func RESTService(cluster string) string { return cluster + "-rest" }

// Flink reads the base's FlinkDeployments.
func (b *Base) Flink() (FlinkClusters, error) {
	fc := FlinkClusters{Jobs: map[string]string{}}
	objs, err := b.Objects()
	if err != nil {
		return fc, err
	}
	for _, o := range objs {
		if str(o["kind"]) != "FlinkDeployment" {
			continue
		}
		name := str(field(o, "metadata", "name"))
		job, _ := field(o, "spec", "job").(map[string]any)
		if job == nil {
			if fc.Session == "" {
				fc.Session = name
			}
			continue
		}
		fc.WithJob = append(fc.WithJob, name)
		// A streaming job runs its SQL file through the SQL runner.
		args, _ := job["args"].([]any)
		if len(args) > 0 {
			if a := str(args[len(args)-1]); strings.HasSuffix(a, ".sql") {
				fc.Jobs[strings.TrimSuffix(path.Base(a), ".sql")] = name
			}
		}
	}
	sort.Strings(fc.WithJob)
	return fc, nil
}

// ForwardListener is the listener of the rendered Kafka through which
// each broker advertises the local end of labgen's port-forward to it
// (render/kube's kafka()).
const ForwardListener = "local"

// Broker is one Kafka broker as labgen run --kubernetes reaches it: a
// port-forward of its pod's listener port to the local port it
// advertises on 127.0.0.1.
type Broker struct {
	ID    int
	Pod   string
	Port  int
	Local int
}

// KafkaBrokers reads the brokers of the base's Kafka cluster from its
// listener ForwardListener and its node pool (Strimzi names the pods
// <cluster>-<pool>-<node id>, ids from 0). ok is false when the Kafka
// has no such listener (a base rendered before it had one).
func (b *Base) KafkaBrokers() (brokers []Broker, ok bool, err error) {
	objs, err := b.Objects()
	if err != nil {
		return nil, false, err
	}
	var kafka Object
	var pools []string
	for _, o := range objs {
		switch str(o["kind"]) {
		case "Kafka":
			kafka = o
		case "KafkaNodePool":
			pools = append(pools, str(field(o, "metadata", "name")))
		}
	}
	if kafka == nil {
		return nil, false, nil
	}
	cluster := str(field(kafka, "metadata", "name"))
	listeners, _ := field(kafka, "spec", "kafka", "listeners").([]any)
	for _, l := range listeners {
		l, _ := l.(map[string]any)
		if str(l["name"]) != ForwardListener {
			continue
		}
		if len(pools) != 1 {
			return nil, true, fmt.Errorf("the Kafka %s has %d node pools; labgen forwards to the brokers of one", cluster, len(pools))
		}
		per, _ := field(l, "configuration", "brokers").([]any)
		for _, p := range per {
			p, _ := p.(map[string]any)
			id := num(p["broker"])
			brokers = append(brokers, Broker{ID: id, Pod: fmt.Sprintf("%s-%s-%d", cluster, pools[0], id),
				Port: num(l["port"]), Local: num(p["advertisedPort"])})
		}
		sort.Slice(brokers, func(i, j int) bool { return brokers[i].ID < brokers[j].ID })
		if len(brokers) == 0 {
			return nil, true, fmt.Errorf("the Kafka %s's listener %s advertises no broker", cluster, ForwardListener)
		}
		return brokers, true, nil
	}
	return nil, false, nil
}
