package kube

import (
	"fmt"
	"sort"
	"strings"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

type port struct {
	name string
	port int
}

// serviceFacts is what differs in the cluster for a compose service
// (the ports other services reach it at are its Listens in the registry).
type serviceFacts struct {
	// tcpProbe replaces a health check that names the compose host.
	tcpProbe int
	// podIdentity passes the pod's name and namespace to the container
	// (POD_NAME, POD_NAMESPACE) ahead of its own variables.
	podIdentity bool
	// fix changes the container for the cluster.
	fix func(r *renderer, name string, c M)
}

// facts are keyed by compose service.
var facts = map[string]serviceFacts{
	"coordinator-server": {tcpProbe: 9123, podIdentity: true, fix: flussServer},
	"tablet-server":      {tcpProbe: 9123, podIdentity: true, fix: flussServer},
}

// flussServer follows Fluss's Helm chart: a StatefulSet behind a
// headless Service, listening on all addresses and advertising the pod's
// own DNS name; a tablet server's id is its pod's ordinal.
func flussServer(r *renderer, name string, c M) {
	env := c["env"].([]any)
	for i, e := range env {
		m := e.(M)
		if m["name"] == "FLUSS_PROPERTIES" {
			m["value"] = string(flussSettings(r.l, name).YAML())
			env[i] = m
		}
	}
	if name == "tablet-server" {
		cmd := c["command"].([]string)
		cmd[len(cmd)-1] = `export FLUSS_PROPERTIES="${FLUSS_PROPERTIES}` + render.FlussServerID + `: ${POD_NAME##*-}
" && ` + cmd[len(cmd)-1]
	}
}

// flussSettings are the lab's Fluss settings (render.FlussSettings) as the
// Kubernetes face sets them.
func flussSettings(l *schemas.Lab, name string) render.Settings {
	var s render.Settings
	for _, x := range render.FlussSettings(l, name) {
		switch x.Key {
		case flussListeners:
			s = append(s, render.Setting{Key: flussListeners, Value: "FLUSS://0.0.0.0:9123"},
				render.Setting{Key: flussAdvertised, Value: fmt.Sprintf("FLUSS://$(POD_NAME).%s-hs.$(POD_NAMESPACE).svc:9123", name)})
		case render.FlussServerID:
			// set from the pod's ordinal by the tablet server's command
		default:
			s = append(s, x)
		}
	}
	return s
}

const (
	flussListeners  = "bind.listeners"
	flussAdvertised = "advertised.listeners"
)

// workload renders a compose service as a StatefulSet (it keeps state in
// a volume of its own), a Job (it runs once) or a Deployment, with a
// Service for the ports it is reached at.
func (r *renderer) workload(name string) error {
	svc := r.services[name]
	f := facts[name]
	c := M{"name": name, "image": svc.Image}
	if cmd := unescapeAll(svc.Entrypoint); cmd != nil {
		c["command"] = cmd
	}
	if args := unescapeAll(svc.Command); args != nil {
		c["args"] = args
	}
	var env []any
	if f.podIdentity {
		env = append(env,
			M{"name": "POD_NAME", "valueFrom": M{"fieldRef": M{"fieldPath": "metadata.name"}}},
			M{"name": "POD_NAMESPACE", "valueFrom": M{"fieldRef": M{"fieldPath": "metadata.namespace"}}})
	}
	env = append(env, containerEnv(svc, SecretName)...)
	for _, e := range env {
		if v, ok := e.(M)["value"].(string); ok {
			e.(M)["value"] = strings.ReplaceAll(v, render.KafkaInternal, Face.Kafka)
		}
	}
	if len(env) > 0 {
		c["env"] = env
	}
	if f.fix != nil {
		f.fix(r, name, c)
	}
	if mb := r.memory[name]; mb > 0 {
		c["resources"] = memoryResources(mb)
	}
	var ports []port
	if d := schemas.Service(name); d != nil {
		for _, p := range d.Listens {
			ports = append(ports, port{p.Name, p.Port})
		}
	}
	for _, p := range svc.Ports {
		if !hasPort(ports, p.Target) {
			ports = append(ports, port{fmt.Sprintf("p%d", p.Target), p.Target})
		}
	}
	var cports []any
	for _, p := range ports {
		cports = append(cports, M{"name": p.name, "containerPort": p.port})
	}
	if cports != nil {
		c["ports"] = cports
	}
	switch {
	case f.tcpProbe != 0:
		c["readinessProbe"] = M{"tcpSocket": M{"port": f.tcpProbe}, "periodSeconds": 5, "failureThreshold": 24}
	case svc.HealthCheck != nil && len(svc.HealthCheck.Test) == 2 && svc.HealthCheck.Test[0] == "CMD-SHELL":
		c["readinessProbe"] = M{"exec": M{"command": []any{"/bin/sh", "-c", unescape(svc.HealthCheck.Test[1])}},
			"periodSeconds": 10, "timeoutSeconds": 10, "failureThreshold": 30}
	}

	// Volumes: a named volume of its own is state (a claim of the
	// StatefulSet), a shared one the shared claim, a bound file of the
	// lab directory a key of the lab-files ConfigMap.
	var mounts, vols []any
	var claims []any
	var labPaths []string
	shared := map[string]string{"warehouse": WarehousePVC, "flink-checkpoints": CheckpointPVC}
	for _, v := range svc.Volumes {
		switch {
		case v.Type == "volume" && shared[v.Source] != "":
			mounts = append(mounts, M{"name": v.Source, "mountPath": v.Target})
			vols = append(vols, M{"name": v.Source, "persistentVolumeClaim": M{"claimName": shared[v.Source]}})
		case v.Type == "volume":
			mounts = append(mounts, M{"name": v.Source, "mountPath": v.Target})
			claims = append(claims, M{"metadata": M{"name": v.Source},
				"spec": M{"accessModes": []any{"ReadWriteOnce"}, "resources": M{"requests": M{"storage": "5Gi"}}}})
		case v.Type == "bind" && v.Source == ".":
			mounts = append(mounts, M{"name": "lab", "mountPath": v.Target, "readOnly": true})
			labPaths = r.labFilePaths()
		case v.Type == "bind":
			p := strings.TrimPrefix(v.Source, "./")
			if r.fileOf(p) == nil {
				return fmt.Errorf("kube: %s binds %s, which the render did not write", name, v.Source)
			}
			if !contains(r.labFilePaths(), p) {
				// Not an SQL file: give the lab-files ConfigMap this one too.
				r.extraLabFiles = append(r.extraLabFiles, p)
			}
			mounts = append(mounts, M{"name": "lab", "mountPath": v.Target, "subPath": p, "readOnly": true})
			labPaths = r.labFilePaths()
		}
	}
	if labPaths != nil {
		vols = append(vols, M{"name": "lab", "configMap": M{"name": LabFiles, "items": configItems(r.allLabFiles())}})
	}
	if mounts != nil {
		c["volumeMounts"] = mounts
	}
	pod := M{"containers": []any{c}}
	if vols != nil {
		pod["volumes"] = vols
	}
	if name == "coordinator-server" || name == "tablet-server" {
		// The warehouse is shared with Flink's pods (the flink user).
		pod["securityContext"] = M{"fsGroup": 9999}
	}

	var objs []M
	headless := false
	switch {
	case r.isOneShot(name):
		pod["restartPolicy"] = "OnFailure"
		objs = append(objs, M{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name, r.labels(name)),
			"spec": M{"backoffLimit": 20, "template": M{"metadata": M{"labels": r.labels(name)}, "spec": pod}}})
	case claims != nil || f.podIdentity:
		headless = true
		spec := M{
			"serviceName": name + "-hs",
			"replicas":    1,
			"selector":    M{"matchLabels": M{"app.kubernetes.io/name": name}},
			"template":    M{"metadata": M{"labels": r.labels(name)}, "spec": pod},
		}
		if claims != nil {
			spec["volumeClaimTemplates"] = claims
		}
		objs = append(objs, M{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(name, r.labels(name)), "spec": spec})
	default:
		objs = append(objs, r.deployment(name, pod))
	}
	if len(ports) > 0 {
		objs = append(objs, r.service(name, ports, false))
		if headless {
			objs = append(objs, r.service(name, ports, true))
		}
	}
	return r.emit(name+".yaml", fmt.Sprintf("The compose service %s.", name), objs...)
}

func (r *renderer) isOneShot(name string) bool {
	for _, m := range render.MemoryBudget(r.l) {
		if m.Service == name {
			return m.OneShot
		}
	}
	return false
}

func (r *renderer) deployment(name string, pod M) M {
	return M{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name, r.labels(name)),
		"spec": M{
			"replicas": 1,
			"selector": M{"matchLabels": M{"app.kubernetes.io/name": name}},
			"template": M{"metadata": M{"labels": r.labels(name)}, "spec": pod},
		}}
}

// service is the ClusterIP Service of a workload, or the headless one
// (name-hs) that gives a StatefulSet's pods their DNS names.
func (r *renderer) service(name string, ports []port, headless bool) M {
	var ps []any
	for _, p := range ports {
		ps = append(ps, M{"name": p.name, "port": p.port, "targetPort": p.port})
	}
	spec := M{"selector": M{"app.kubernetes.io/name": name}, "ports": ps}
	svcName := name
	if headless {
		svcName += "-hs"
		spec["clusterIP"] = "None"
		spec["publishNotReadyAddresses"] = true
	}
	return M{"apiVersion": "v1", "kind": "Service", "metadata": meta(svcName, r.labels(name)), "spec": spec}
}

func hasPort(ps []port, n int) bool {
	for _, p := range ps {
		if p.port == n {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// allLabFiles are the lab-files ConfigMap's paths: lab.json, the SQL
// and the other files services bind.
func (r *renderer) allLabFiles() []string {
	out := append([]string(nil), r.labFilePaths()...)
	for _, p := range r.extraLabFiles {
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
