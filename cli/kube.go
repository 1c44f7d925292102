package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/labdir"
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

// kubeDown deletes what the base created.
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
	what := "The lab's objects are deleted from " + base.Namespace + "; its volume claims are kept."
	if volumes {
		what = "The lab's objects and volume claims are deleted from " + base.Namespace + "."
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
