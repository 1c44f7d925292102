package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/runtime/linkproxy"
)

// ErrNotRunning says no supervisor runs for the lab.
var ErrNotRunning = errors.New("no native stack runs")

// Client talks to a lab's running supervisor.
type Client struct {
	lay  Layout
	ctrl control
}

// Connect finds the lab's supervisor.
func Connect(lay Layout) (*Client, error) {
	b, err := os.ReadFile(lay.controlPath())
	if errors.Is(err, fs.ErrNotExist) || !lay.Running() {
		return nil, fmt.Errorf("%w for %s (labgen up %s --native starts one)", ErrNotRunning, lay.Lab, lay.Lab)
	}
	if err != nil {
		return nil, err
	}
	var c control
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", lay.controlPath(), err)
	}
	return &Client{lay: lay, ctrl: c}, nil
}

// Command is how a record shows a service action of the native stack:
// what the supervisor does to the service's local process (the step's
// output then names the process and how it ended).
func (c *Client) Command(args ...string) string {
	if len(args) == 2 {
		switch args[0] {
		case "stop":
			return fmt.Sprintf("labgen native supervisor: SIGTERM to %s's process group, SIGKILL after %s", args[1], stopGrace)
		case "start":
			return fmt.Sprintf("labgen native supervisor: start %s's process, wait until its health probe passes", args[1])
		case "restart":
			return fmt.Sprintf("labgen native supervisor: SIGTERM to %s's process group, start it again, wait until its health probe passes", args[1])
		case "pause":
			return fmt.Sprintf("labgen native supervisor: SIGSTOP to %s's process group (alive but frozen, not restarted, until unpause)", args[1])
		case "unpause":
			return fmt.Sprintf("labgen native supervisor: SIGCONT to %s's process group, if paused", args[1])
		}
	}
	return "labgen native supervisor: " + strings.Join(args, " ")
}

// Service stops, starts, restarts, pauses or unpauses one service, as
// docker compose stop/start/restart/pause/unpause does; start and restart
// return once the service is healthy again.
func (c *Client) Service(ctx context.Context, action, service string) (string, error) {
	return c.post(ctx, "/services/"+service+"/"+action)
}

// SlowLink delays every byte of one link of the stack (a latency
// control): the link proxy, which the stack runs when some control of the
// lab slows a link, adds a latency toxic to it.
func (c *Client) SlowLink(ctx context.Context, link string, add time.Duration) (string, error) {
	api := linkProxyAPI()
	if err := linkproxy.Slow(api, link, add); err != nil {
		return "", fmt.Errorf("the native stack's link proxy (service %s, API %s; it runs when the stack came up with a latency control in the lab): %w", LinkProxyService, api, err)
	}
	return fmt.Sprintf("labgen link proxy (toxiproxy, API %s): a latency toxic of %s on link %s, every byte from its upstream delayed", api, add, link), nil
}

// RestoreLink removes what SlowLink added; the bytes it held go on at
// once.
func (c *Client) RestoreLink(ctx context.Context, link string) (string, error) {
	api := linkProxyAPI()
	if err := linkproxy.Restore(api, link); err != nil {
		return "", fmt.Errorf("the native stack's link proxy (API %s): %w", api, err)
	}
	return fmt.Sprintf("labgen link proxy (toxiproxy, API %s): the latency toxic on link %s removed, its held bytes passed on", api, link), nil
}

func linkProxyAPI() string { return "127.0.0.1:" + strconv.Itoa(portLinkProxyAPI) }

// Shutdown asks the supervisor to stop every service and exit.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.post(ctx, "/shutdown")
	return err
}

func (c *Client) post(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.ctrl.Addr+path, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+c.ctrl.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("the native supervisor does not answer: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := strings.TrimSpace(string(b))
	if resp.StatusCode != http.StatusOK {
		return "", errors.New(out)
	}
	return out, nil
}

// Launch starts the supervisor in the background, detached from this
// process and its terminal: argv is the command that runs it (labgen's
// hidden supervise command). Its output goes to .native/logs/supervisor.log.
func Launch(lay Layout, argv []string) (int, error) {
	if lay.Running() {
		return 0, fmt.Errorf("a native stack already runs for %s", lay.Lab)
	}
	if err := os.MkdirAll(filepath.Dir(lay.SupervisorLog()), 0o755); err != nil {
		return 0, err
	}
	// A stale status of an earlier stack must not be read as this one's.
	os.Remove(lay.statusPath())
	out, err := os.OpenFile(lay.SupervisorLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = lay.Lab
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	// Reap it if it dies while this process still runs; never wait on it.
	go cmd.Wait()
	return pid, nil
}

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go opens its own files so; one this process inherited without it (a
// caller's `flock FILE labgen up`) would otherwise pass to the supervisor
// and every service, and be held, lock and all, as long as the stack runs.
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// WaitUp follows status.json until every service is healthy, one failed,
// the supervisor died, or timeout passed; progress sees each change.
func WaitUp(ctx context.Context, lay Layout, timeout time.Duration, progress func(ServiceStatus)) (*Status, error) {
	seen := map[string]string{}
	var st *Status
	err := proc.Poll(ctx, time.Now().Add(timeout), proc.Pace{Interval: 300 * time.Millisecond}, nil, func(context.Context) error {
		s, err := lay.ReadStatus()
		if err != nil {
			return err
		}
		st = s
		for _, s := range st.Services {
			key := s.State + "|" + s.Detail
			if seen[s.Name] != key {
				seen[s.Name] = key
				if progress != nil {
					progress(s)
				}
			}
		}
		if failed := st.Failed(); len(failed) > 0 {
			var parts []string
			for _, f := range failed {
				parts = append(parts, fmt.Sprintf("%s %s: %s", f.Name, f.State, f.Detail))
			}
			return proc.Final(errors.New(strings.Join(parts, "\n")))
		}
		if st.AllHealthy() {
			return nil
		}
		if !lay.Running() && time.Since(st.Started) > 2*time.Second {
			return proc.Final(fmt.Errorf("the native supervisor stopped; its log %s ends with:\n%s", lay.SupervisorLog(), readTail(lay.SupervisorLog())))
		}
		return errNotUp
	})
	var late *proc.Late
	if errors.As(err, &late) {
		var waiting []string
		if st != nil {
			for _, s := range st.Services {
				if s.State != StateHealthy {
					waiting = append(waiting, s.Name+" ("+s.State+")")
				}
			}
		}
		sort.Strings(waiting)
		return st, fmt.Errorf("the native stack is not up after %s; waiting for %s", timeout, strings.Join(waiting, ", "))
	}
	return st, err
}

var (
	errNotUp        = errors.New("not every service is healthy")
	errStillRunning = errors.New("the supervisor still runs")
)

// Down stops the lab's native stack and waits until every process is gone;
// with volumes, the state directory goes too (records are kept: they live
// outside .native).
func Down(ctx context.Context, lay Layout, volumes bool) (string, error) {
	msg := "The native stack is down"
	if c, err := Connect(lay); err == nil {
		if err := c.Shutdown(ctx); err != nil {
			return "", err
		}
		// Until every process is gone: no deadline but the context's.
		if err := proc.Poll(ctx, time.Now().Add(24*time.Hour), proc.Pace{Interval: 200 * time.Millisecond}, nil, func(context.Context) error {
			if lay.Running() {
				return errStillRunning
			}
			return nil
		}); err != nil {
			return "", err
		}
	} else if errors.Is(err, ErrNotRunning) {
		msg = "No native stack was running"
	} else {
		return "", err
	}
	if volumes {
		if err := os.RemoveAll(lay.State); err != nil {
			return "", err
		}
		return msg + "; its state (" + lay.State + ") is removed.", nil
	}
	return msg + "; its state is kept in " + lay.State + ".", nil
}

// WarehouseFile is the first file named pattern below dir of the stack's
// lake warehouse (slash-separated), as a slash path relative to the lab
// directory. Iceberg keeps data files in partition directories below
// data/, so the walk goes down.
func (c *Client) WarehouseFile(_ context.Context, dir, pattern string) (string, error) {
	root := filepath.Join(c.lay.Warehouse(), filepath.FromSlash(dir))
	found := ""
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err // the directory is not there yet
		}
		if ok, _ := filepath.Match(pattern, d.Name()); ok && d.Type().IsRegular() {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	if found == "" {
		rel, _ := filepath.Rel(c.lay.Lab, root)
		return "", fmt.Errorf("no %s file under %s yet", pattern, filepath.ToSlash(rel))
	}
	rel, _ := filepath.Rel(c.lay.Lab, found)
	return filepath.ToSlash(rel), nil
}

// Reload asks the supervisor to plan the stack again from the lab as it
// is rendered now and to restart each service whose inputs changed.
func (c *Client) Reload(ctx context.Context) (*Reload, error) {
	out, err := c.post(ctx, "/reload")
	if err != nil {
		return nil, err
	}
	var rl Reload
	if err := json.Unmarshal([]byte(out), &rl); err != nil {
		return nil, fmt.Errorf("the native supervisor's answer to a reload: %w", err)
	}
	return &rl, nil
}

// ServiceUsage is what each running service has used so far, summed over
// its process group from /proc: CPU time (user and system) and resident
// memory in bytes. The runner's usage steps read it.
func (c *Client) ServiceUsage() (cpu map[string]time.Duration, rss map[string]int64, err error) {
	st, err := c.lay.ReadStatus()
	if err != nil {
		return nil, nil, err
	}
	cpu, rss = map[string]time.Duration{}, map[string]int64{}
	for _, s := range st.Services {
		if s.PID <= 0 {
			continue
		}
		u := GroupUsage(s.PID)
		if u.Procs == 0 { // it exited since the status was written
			continue
		}
		cpu[s.Name], rss[s.Name] = u.CPU, u.RSS
	}
	return cpu, rss, nil
}
