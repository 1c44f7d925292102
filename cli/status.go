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

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
)

func init() {
	register(&command{
		name:    "status",
		args:    "OUT [--cpu DURATION]",
		summary: "show a native stack's services: state, memory and CPU, logs",
		help: `
Shows each service of the native stack of the rendered lab directory OUT
(labgen up OUT --native): its state, how long it took to become healthy,
its resident memory and CPU time now (summed over its processes), the
memory budget it was given, and its log file. For a compose stack use
./stream-lab compose ps (docker compose ps) instead.

With --cpu DURATION it also samples each service's CPU use over that
time and shows it as a share of one core (100% = one core busy).

Examples:
  labgen status out/orders
  labgen status out/orders --cpu 30s`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			sample := fs.Duration("cpu", 0, "sample CPU use over `DURATION` (e.g. 30s)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("status takes one rendered lab directory")
				}
				if err := labdir.Check(args[0]); err != nil {
					return err
				}
				lay, err := native.NewLayout(args[0])
				if err != nil {
					return err
				}
				st, err := lay.ReadStatus()
				if errors.Is(err, iofs.ErrNotExist) {
					return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("no native stack was started for %s (labgen up %s --native)", args[0], args[0])}
				}
				if err != nil {
					return err
				}
				running := lay.Running()
				// CPU time at the start of the sample, per service.
				before := map[string]time.Duration{}
				if running && *sample > 0 {
					for _, s := range st.Services {
						if s.PID > 0 {
							before[s.Name] = native.GroupUsage(s.PID).CPU
						}
					}
					fmt.Fprintf(env.Stderr, "Sampling CPU use for %s ...\n", *sample)
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(*sample):
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
					} else if s.Restarts > 0 {
						state += fmt.Sprintf(" (restarted %d×)", s.Restarts)
					}
					log := s.Log
					if rel, err := filepath.Rel(lay.Lab, log); err == nil {
						log = rel
					}
					row := []any{s.Name, state, s.Healthy, mem, cpu, s.Memory, log}
					if len(before) > 0 {
						share := ""
						if b, ok := before[s.Name]; ok && s.PID > 0 {
							share = fmt.Sprintf("%.0f%%", 100*float64(native.GroupUsage(s.PID).CPU-b)/float64(*sample))
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
					fmt.Fprintf(env.Stdout, "The native stack is down (labgen up %s --native starts it).\n", args[0])
				}
				return nil
			}
		},
	})
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }
