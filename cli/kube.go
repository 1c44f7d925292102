package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// kubeOptions are up's and down's flags for a lab on Kubernetes.
type kubeOptions struct {
	kubectl string
	dryRun  bool
}

// kubeUp applies the lab's Kubernetes base with kubectl (the current
// context of its kubeconfig) and waits until the workloads, the Kafka
// cluster and the Flink deployments are ready, printing each change.
func kubeUp(ctx context.Context, env *Env, out string, opts kubeOptions, timeout time.Duration) error {
	base, err := kubeBase(out)
	if err != nil {
		return err
	}
	k := kube.Kubectl{Bin: opts.kubectl}
	// The namespace first: the base's other objects live in it, and a dry
	// run does not create it.
	if _, err := k.Run(ctx, "create", "namespace", base.Namespace); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	report, err := base.Apply(ctx, k, opts.dryRun)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	fmt.Fprint(env.Stderr, report)
	if opts.dryRun {
		fmt.Fprintf(env.Stdout, "The cluster accepts the lab (server-side dry run, strict field validation); nothing was created in %s.\n", base.Namespace)
		return nil
	}
	start := time.Now()
	err = base.Wait(ctx, k, timeout, 5*time.Second, func(line string) {
		fmt.Fprintf(env.Stderr, "%6.0fs  %s\n", time.Since(start).Seconds(), line)
	})
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	fmt.Fprintf(env.Stdout, "The lab is up in namespace %s (%.0f s). Reach a service with kubectl port-forward -n %s svc/NAME PORT.\n",
		base.Namespace, time.Since(start).Seconds(), base.Namespace)
	return nil
}

// kubeDown deletes the base's objects but not its namespace (the Flink
// operator's service account lives there) nor, without volumes, the
// volume claims.
func kubeDown(ctx context.Context, env *Env, out string, opts kubeOptions, volumes bool) error {
	base, err := kubeBase(out)
	if err != nil {
		return err
	}
	report, err := base.Delete(ctx, kube.Kubectl{Bin: opts.kubectl}, volumes)
	fmt.Fprint(env.Stderr, report)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	what := "The lab's objects are deleted from " + base.Namespace + "; its volume claims are kept (--volumes deletes them; Kafka's go with the Kafka cluster, whose next KRaft cluster ID could not read them), and so is the namespace with what else is in it (the Flink operator's service account flink)."
	if volumes {
		what = "The lab's objects and every volume claim are deleted from " + base.Namespace + "; the namespace is kept, with what else is in it (the Flink operator's service account flink)."
	}
	fmt.Fprintln(env.Stdout, what)
	return nil
}

// kubeBase is the Kubernetes base of the rendered lab directory out; a
// directory that is not rendered, or rendered without --target
// kubernetes, is the command line's mistake (exit 2).
func kubeBase(out string) (*kube.Base, error) {
	if err := labdir.Check(out); err != nil {
		return nil, err
	}
	if !exists(filepath.Join(out, "kubernetes", "kustomization.yaml")) {
		return nil, usagef("%s has no Kubernetes base: render it with labgen render LAB_DIR -o %s --target kubernetes", out, out)
	}
	base, err := kube.Open(out)
	if err != nil {
		return nil, &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	return base, nil
}

// kubeForwardWait bounds the wait for each port-forward to answer.
var kubeForwardWait = time.Minute

// kubeForward is one port-forward a run needs, and where its address
// goes.
type kubeForward struct {
	what        string
	target      string
	port, local int
	point       func(addr string)
}

// kubeForwards opens the port-forwards of labgen run --kubernetes: one
// kubectl port-forward per service the run reaches and no endpoint flag
// names (MySQL or PostgreSQL, ClickHouse's native port, the SQL gateway,
// the REST API of the Flink cluster the experiments read, each Kafka
// broker through its listener for port-forwards), on local ports of
// labgen's choosing (the brokers': the ports they advertise), and points
// ep at them. It waits until each answers and returns them, for the
// caller to close; on an error none is left open.
func kubeForwards(ctx context.Context, env *Env, base *kube.Base, k kube.Kubectl, lab *schemas.Lab, experiments []*schemas.Experiment, ep *endpointFlags, info func(string)) (kube.Forwards, error) {
	s := lab.Stack
	fmt.Fprintf(env.Stderr, "Port-forwards into namespace %s (kubectl port-forward, closed when the run ends):\n", base.Namespace)
	note := func(s string) { info("  " + s) }
	var plan []kubeForward
	service := func(what, name, portName string, given string, point func(string)) error {
		if given != "" {
			note(fmt.Sprintf("%s: the endpoint flag's %s, no port-forward", what, given))
			return nil
		}
		port, ok, err := base.ServicePort(name, portName)
		if err != nil {
			return err
		}
		if !ok {
			note(fmt.Sprintf("%s: the base has no Service %s with that port; no port-forward", what, name))
			return nil
		}
		plan = append(plan, kubeForward{what: what, target: "svc/" + name, port: port, point: point})
		return nil
	}
	var errs []error
	if s.MySQL != nil {
		errs = append(errs, service("MySQL", "mysql", "", ep.mysql, func(a string) { ep.mysql = a }))
	}
	if s.Postgres != nil {
		errs = append(errs, service("PostgreSQL", "postgres", "", ep.postgres, func(a string) { ep.postgres = a }))
	}
	if s.ClickHouse != nil {
		// host:port is ClickHouse's native protocol, the runner's default.
		errs = append(errs, service("ClickHouse", "clickhouse", "native", ep.clickhouse, func(a string) { ep.clickhouse = a }))
	}
	if s.Flink != nil {
		errs = append(errs, service("Flink SQL gateway", "sql-gateway", "", ep.gateway, func(a string) { ep.gateway = "http://" + a }))
		if ep.flink != "" {
			note(fmt.Sprintf("Flink REST: the endpoint flag's %s, no port-forward", ep.flink))
		} else {
			fc, err := base.Flink()
			if err != nil {
				return nil, err
			}
			cluster, notes := kubeFlinkCluster(fc, experiments)
			for _, n := range notes {
				note(n)
			}
			if cluster != "" {
				plan = append(plan, kubeForward{what: "Flink REST of " + cluster, target: "svc/" + kube.RESTService(cluster),
					port: kube.FlinkRESTPort, point: func(a string) { ep.flink = "http://" + a }})
			}
		}
	}
	if s.Kafka != nil {
		switch brokers, ok, err := base.KafkaBrokers(); {
		case ep.kafka != "":
			note(fmt.Sprintf("Kafka: the endpoint flag's %s, no port-forward", ep.kafka))
		case err != nil:
			errs = append(errs, err)
		case !ok:
			note(fmt.Sprintf("Kafka: the base's Kafka has no listener %q for port-forwards (its brokers advertise names only the cluster resolves): render the lab again, or give --kafka", kube.ForwardListener))
		default:
			for i, b := range brokers {
				f := kubeForward{what: fmt.Sprintf("Kafka broker %d", b.ID), target: "pod/" + b.Pod, port: b.Port, local: b.Local}
				if i == 0 {
					f.point = func(a string) { ep.kafka = a }
				}
				plan = append(plan, f)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, &exitError{code: ExitRunFailed, msg: err.Error()}
	}

	var fs kube.Forwards
	fail := func(err error) (kube.Forwards, error) {
		fs.Close()
		return nil, &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	for _, p := range plan {
		f, err := kube.StartForward(ctx, k, base.Namespace, p.target, p.port, p.local)
		if err != nil && p.local != 0 {
			err = fmt.Errorf("%w: the brokers advertise 127.0.0.1 and this port to labgen's port-forwards; free it, or give --kafka", err)
		}
		if err != nil {
			return fail(fmt.Errorf("%s: %w", p.what, err))
		}
		f.OnRestart = info
		fs = append(fs, f)
		fmt.Fprintf(env.Stderr, "  %s (%s) …\n", f, p.what)
	}
	start := time.Now()
	for i, f := range fs {
		if err := f.Ready(ctx, kubeForwardWait); err != nil {
			return fail(fmt.Errorf("%s: %w", plan[i].what, err))
		}
		fmt.Fprintf(env.Stderr, "  %-28s answers at %s (%.1f s)\n", plan[i].what, f.Addr(), time.Since(start).Seconds())
		if plan[i].point != nil {
			plan[i].point(f.Addr())
		}
	}
	return fs, nil
}

// kubeFlinkCluster chooses the Flink cluster whose REST API a run
// reads. On Kubernetes each streaming job has a cluster of its own and
// the bounded jobs run on the session cluster, while a run reads one
// Flink REST URL: the cluster most steps of the experiments need (a
// flink step's job's, the session cluster for bounded jobs, every job's
// cluster for smoke checks and a flink step without a job), else the
// first streaming job's. The notes name the steps that read another.
func kubeFlinkCluster(fc kube.FlinkClusters, experiments []*schemas.Experiment) (string, []string) {
	needs := map[string][]string{}
	need := func(cluster, step string) {
		if cluster != "" {
			needs[cluster] = append(needs[cluster], step)
		}
	}
	for _, e := range experiments {
		for _, s := range e.Steps {
			step := e.Name + "." + s.Name
			switch {
			case s.Kind == schemas.StepFlink && s.Flink != nil && s.Flink.Job != "":
				if c, ok := fc.Jobs[s.Flink.Job]; ok {
					need(c, step)
				} else {
					need(fc.Session, step)
				}
			case s.Kind == schemas.StepFlink:
				for _, c := range fc.WithJob {
					need(c, step)
				}
			case s.Kind == schemas.StepLab && s.Lab != nil && s.Lab.Action == "batch":
				need(fc.Session, step)
			case s.Kind == schemas.StepLab && s.Lab != nil && s.Lab.Action == "smoke":
				for _, c := range fc.WithJob {
					need(c, step)
				}
			}
		}
	}
	var first string
	var jobClusters []string
	for _, c := range fc.Jobs {
		jobClusters = append(jobClusters, c)
	}
	sort.Strings(jobClusters)
	if len(jobClusters) > 0 {
		first = jobClusters[0]
	} else {
		first = fc.Session
	}
	if len(needs) == 0 {
		return first, nil
	}
	var clusters []string
	for c := range needs {
		clusters = append(clusters, c)
	}
	// Most steps first; then the first streaming job's, then by name.
	sort.Slice(clusters, func(i, j int) bool {
		a, b := clusters[i], clusters[j]
		if len(needs[a]) != len(needs[b]) {
			return len(needs[a]) > len(needs[b])
		}
		if (a == first) != (b == first) {
			return a == first
		}
		return a < b
	})
	chosen := clusters[0]
	var notes []string
	for _, c := range clusters[1:] {
		notes = append(notes, fmt.Sprintf("Flink: labgen forwards one Flink REST API, %s's; step(s) %s also read cluster %s and will not find its jobs there (run them with --flink after kubectl port-forward svc/%s %d)",
			chosen, strings.Join(needs[c], ", "), c, kube.RESTService(c), kube.FlinkRESTPort))
	}
	return chosen, notes
}

// kubeExperiments are the experiments a run will run, as the runner
// chooses them (all of them for --resume, whose record chose).
func kubeExperiments(lab *schemas.Lab, sel []string) []*schemas.Experiment {
	if len(sel) == 0 {
		return lab.Experiments
	}
	var out []*schemas.Experiment
	for _, e := range lab.Experiments {
		for _, s := range sel {
			if e.Name == s || strconv.Itoa(e.Number) == strings.TrimLeft(s, "0") || fmt.Sprintf("%02d", e.Number) == s {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
