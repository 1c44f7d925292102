package kube

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/labgen/labgen/internal/kubecheck"
)

// flinkOperatorRules are the Flink Kubernetes Operator 1.10.0's checks of
// a FlinkDeployment that a server-side dry run does not make (the
// operator's DefaultValidator.validateDeployment, read at the tag
// release-1.10.0: flink-kubernetes-operator/src/main/java/org/apache/
// flink/kubernetes/operator/validation/DefaultValidator.java), with
// Flink 1.19's names of the keys (the operator is built on Flink 1.19.1:
// CheckpointingOptions.CHECKPOINTS_DIRECTORY is state.checkpoints.dir,
// SAVEPOINT_DIRECTORY state.savepoints.dir). The operator's default
// configuration is its Helm chart's, which sets neither.
func flinkOperatorRules(o map[string]any) []string {
	var errs []string
	name := at(o, "metadata")["name"].(string)
	spec := at(o, "spec")
	conf := map[string]string{}
	if fc, ok := spec["flinkConfiguration"].(map[string]any); ok {
		for k, v := range fc {
			conf[k] = fmt.Sprint(v)
		}
	}
	set := func(keys ...string) bool {
		for _, k := range keys {
			if strings.TrimSpace(conf[k]) != "" {
				return true
			}
		}
		return false
	}
	ha := func() bool {
		for _, k := range []string{"high-availability.type", "high-availability"} {
			if v := strings.ToUpper(conf[k]); v != "" && v != "NONE" {
				return true
			}
		}
		return false
	}
	// validateDeploymentName
	if !regexp.MustCompile(`^[a-z]([-a-z\d]{0,43}[a-z\d])?$`).MatchString(name) {
		errs = append(errs, "The FlinkDeployment name: "+name+" is invalid")
	}
	// validateFlinkVersion: v1_15 and later, up to the operator's newest
	// (FlinkVersion in 1.10.0 ends at v1_20).
	if v, _ := spec["flinkVersion"].(string); !regexp.MustCompile(`^v1_(1[5-9]|20)$`).MatchString(v) {
		errs = append(errs, fmt.Sprintf("Flink version %q is not supported by this operator version", v))
	}
	// validateFlinkDeploymentConfig
	for _, k := range []string{"kubernetes.namespace", "kubernetes.cluster-id", "high-availability.cluster-id"} {
		if _, ok := conf[k]; ok {
			errs = append(errs, "Forbidden Flink config key: "+k)
		}
	}
	if conf["kubernetes.operator.deployment.rollback.enabled"] == "true" && !ha() {
		errs = append(errs, "HA must be enabled for rollback support.")
	}
	// validateJobSpec
	if job, ok := spec["job"].(map[string]any); ok {
		mode, _ := job["upgradeMode"].(string)
		if mode != "stateless" && !set("state.checkpoints.dir", "state.backend.fs.checkpointdir") {
			errs = append(errs, "Checkpoint directory[state.checkpoints.dir] must be defined for last-state and savepoint upgrade modes")
		}
		if mode == "savepoint" && !set("state.savepoints.dir", "savepoints.state.backend.fs.dir") {
			errs = append(errs, "Job could not be upgraded with savepoint while config key[state.savepoints.dir] is not set")
		}
	}
	// validateJmSpec, validateTmSpec: memory given, replicas
	for _, part := range []string{"jobManager", "taskManager"} {
		p, _ := spec[part].(map[string]any)
		res, _ := p["resource"].(map[string]any)
		if mem, _ := res["memory"].(string); !regexp.MustCompile(`^\d+(m|g|mb|gb|Mi|Gi)$`).MatchString(mem) {
			errs = append(errs, fmt.Sprintf("%s resource memory must be defined (got %q)", part, mem))
		}
		if r, ok := p["replicas"]; ok {
			n, _ := r.(int64)
			if n < 1 {
				errs = append(errs, part+" replicas should not be configured less than one.")
			}
			if part == "jobManager" && n > 1 && !ha() {
				errs = append(errs, "High availability should be enabled when starting standby JobManagers.")
			}
		}
	}
	// validateServiceAccount
	if sa, _ := spec["serviceAccount"].(string); sa == "" {
		errs = append(errs, "spec.serviceAccount must be defined.")
	}
	return errs
}

// strimziListenerRules are Strimzi 1.2.0's ListenersValidator checks
// (cluster-operator/.../model/ListenersValidator.java at the tag 1.2.0)
// of what the base's Kafka sets: unique names of ^[a-z0-9]{1,11}$,
// unique ports from 9092 on, never 9404 or 9999, and per-broker hosts
// only on listeners of the types that take them.
func strimziListenerRules(o map[string]any) []string {
	var errs []string
	kafka := at(o, "spec", "kafka")
	names, ports := map[string]bool{}, map[int64]bool{}
	listeners, _ := kafka["listeners"].([]any)
	for _, l := range listeners {
		m := l.(map[string]any)
		name, _ := m["name"].(string)
		port, _ := m["port"].(int64)
		typ, _ := m["type"].(string)
		if names[name] {
			errs = append(errs, "every listener needs to have a unique name")
		}
		names[name] = true
		if !regexp.MustCompile(`^[a-z0-9]{1,11}$`).MatchString(name) {
			errs = append(errs, "listener name "+name+" is invalid")
		}
		if ports[port] {
			errs = append(errs, "every listener needs to have a unique port number")
		}
		ports[port] = true
		if port == 9404 || port == 9999 || port < 9092 {
			errs = append(errs, fmt.Sprintf("port %d is forbidden and cannot be used", port))
		}
		conf, _ := m["configuration"].(map[string]any)
		brokers, _ := conf["brokers"].([]any)
		for _, b := range brokers {
			bm := b.(map[string]any)
			if _, ok := bm["host"]; ok && typ != "route" && typ != "ingress" && typ != "tlsroute" {
				errs = append(errs, "listener "+name+" cannot configure brokers[].host")
			}
			if _, ok := bm["nodePort"]; ok && typ != "nodeport" && typ != "loadbalancer" {
				errs = append(errs, "listener "+name+" cannot configure brokers[].nodePort")
			}
		}
	}
	return errs
}

// Every FlinkDeployment and Kafka of every render passes the operators'
// own rules, and a render without the checkpoint or savepoint directory
// of Flink 1.19's name does not.
func TestOperatorRules(t *testing.T) {
	for _, v := range validationVariants {
		t.Run(v.name, func(t *testing.T) {
			objs, err := kubecheck.Build(renderVariant(t, v))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				var errs []string
				switch o["kind"] {
				case "FlinkDeployment":
					errs = flinkOperatorRules(o)
					if _, isJob := at(o, "spec")["job"]; isJob {
						for _, key := range []string{"state.checkpoints.dir", "state.savepoints.dir"} {
							mutated := kubecheck.DeepCopy(o).(map[string]any)
							delete(at(mutated, "spec", "flinkConfiguration"), key)
							if len(flinkOperatorRules(mutated)) == 0 {
								t.Errorf("%s without %s passes the rules: they check nothing", objName(o), key)
							}
						}
					}
				case "Kafka":
					errs = strimziListenerRules(o)
				}
				for _, e := range errs {
					t.Errorf("%s: %s", objName(o), e)
				}
			}
		})
	}
}
