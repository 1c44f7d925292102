package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"time"

	"github.com/olekukonko/tablewriter"

	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
)

func init() {
	register(&command{
		name:    "status",
		args:    "OUT [--cpu DURATION] [--kubernetes [--kubectl PATH]]",
		summary: "show the lab's services: state (native: memory, CPU and logs too)",
		help: `
Shows each service of the native stack of the rendered lab directory OUT
(labgen up OUT --native): its state, how long it took to become healthy,
its resident memory and CPU time now (summed over its processes), the
memory budget it was given, and its log file. For a compose stack (no
native stack ran for OUT, and Docker is here) it shows each service's
container state and health (docker compose ps); with --kubernetes, the
readiness of each object of the lab's Kubernetes base.

With --cpu DURATION it also samples each service's CPU use over that
time and shows it as a share of one core (100% = one core busy).

Examples:
  labgen status out/orders
  labgen status out/orders --cpu 30s
  labgen status out/orders --kubernetes`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			sample := fs.Duration("cpu", 0, "sample CPU use over `DURATION` (e.g. 30s; native stack)")
			k8s := fs.Bool("kubernetes", false, "the readiness of the lab's Kubernetes objects (kubectl)")
			kubectl := fs.String("kubectl", "", "with --kubernetes: the kubectl `PATH` (default: kubectl from PATH)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("status takes one rendered lab directory")
				}
				if *k8s && *sample > 0 {
					return usagef("--cpu samples the native stack's processes; not with --kubernetes")
				}
				if err := labdir.Check(args[0]); err != nil {
					return err
				}
				return chooseFace(args[0], false, *k8s, *kubectl, nativeIfRan).Status(ctx, env, *sample)
			}
		},
	})
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }

// Status shows each supervised service: state, how long it took to become
// healthy, memory and CPU (sampled over sample, if set), budget and log.
func (f nativeFace) Status(ctx context.Context, env *Env, sample time.Duration) error {
	lay, err := native.NewLayout(f.dir)
	if err != nil {
		return err
	}
	st, err := lay.ReadStatus()
	if errors.Is(err, iofs.ErrNotExist) {
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("no native stack was started for %s (labgen up %s --native)", f.dir, f.dir)}
	}
	if err != nil {
		return err
	}
	running := lay.Running()
	// CPU time at the start of the sample, per service.
	before := map[string]time.Duration{}
	if running && sample > 0 {
		for _, s := range st.Services {
			if s.PID > 0 {
				before[s.Name] = native.GroupUsage(s.PID).CPU
			}
		}
		fmt.Fprintf(env.Stderr, "Sampling CPU use for %s ...\n", sample)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sample):
		}
	}
	t := tablewriter.NewWriter(env.Stdout)
	header := []any{"service", "state", "healthy after", "memory", "CPU time", "budget", "log"}
	if len(before) > 0 {
		header = append(header[:5], append([]any{"CPU"}, header[5:]...)...)
	}
	t.Header(header...)
	var total int64
	for _, s := range st.Services {
		mem, cpu := "", ""
		if running && s.PID > 0 {
			u := native.GroupUsage(s.PID)
			total += u.RSS
			mem, cpu = mib(u.RSS), u.CPU.Round(time.Second).String()
		}
		state := s.State
		if !running {
			state = "down"
		} else {
			if s.State == native.StatePaused {
				state += fmt.Sprintf(" since %s UTC (%s)", s.Since.UTC().Format(time.TimeOnly), time.Since(s.Since).Round(time.Second))
			}
			if s.Restarts > 0 {
				state += fmt.Sprintf(" (restarted %d×)", s.Restarts)
			}
		}
		log := s.Log
		if rel, err := filepath.Rel(lay.Lab, log); err == nil {
			log = rel
		}
		row := []any{s.Name, state, s.Healthy, mem, cpu, s.Memory, log}
		if len(before) > 0 {
			share := ""
			if b, ok := before[s.Name]; ok && s.PID > 0 {
				share = fmt.Sprintf("%.0f%%", 100*float64(native.GroupUsage(s.PID).CPU-b)/float64(sample))
			}
			row = append(row[:5], append([]any{share}, row[5:]...)...)
		}
		t.Append(row...)
	}
	if err := t.Render(); err != nil {
		return err
	}
	if running {
		fmt.Fprintf(env.Stdout, "Resident memory of every service: %s. The supervisor (pid %d) started %s ago.\n", mib(total), st.PID, time.Since(st.Started).Round(time.Second))
		for _, s := range st.Services {
			if s.LastExit != "" {
				fmt.Fprintf(env.Stdout, "%s last exited on its own at %s; the supervisor starts such a service again (1 s, doubling to 30 s while it keeps exiting).\n", s.Name, s.LastExit)
			}
		}
	} else {
		fmt.Fprintf(env.Stdout, "The native stack is down (labgen up %s --native starts it).\n", f.dir)
	}
	return nil
}

// Status shows each service's container state and health.
func (f composeFace) Status(ctx context.Context, env *Env, _ time.Duration) error {
	c, err := openCompose(f.dir)
	if err != nil {
		return err
	}
	svcs, err := c.PS(ctx)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	if len(svcs) == 0 {
		fmt.Fprintf(env.Stdout, "No container of the lab runs (labgen up %s starts them).\n", f.dir)
		return nil
	}
	t := tablewriter.NewWriter(env.Stdout)
	t.Header("service", "state", "ready")
	for _, s := range svcs {
		ready := "no"
		if s.Ready() {
			ready = "yes"
		}
		t.Append(s.Service, s.Describe(), ready)
	}
	return t.Render()
}

// Status shows the readiness of each object of the base.
func (f kubeFace) Status(ctx context.Context, env *Env, _ time.Duration) error {
	base, err := kubeBase(f.dir)
	if err != nil {
		return err
	}
	states, err := base.States(ctx, kube.Kubectl{Bin: f.kubectl})
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	t := tablewriter.NewWriter(env.Stdout)
	t.Header("kind", "name", "ready", "detail")
	for _, s := range states {
		ready := "no"
		if s.Ready {
			ready = "yes"
		}
		t.Append(s.Kind, s.Name, ready, s.Detail)
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Namespace %s.\n", base.Namespace)
	return nil
}
