// Package compose controls a rendered lab's Docker Compose stack through
// the docker executable (docker compose …): up with waiting for every
// service to be healthy and progress per service, down, and stop / start /
// restart / pause / unpause of one service.
//
// Every command runs as
//
//	docker compose --project-directory DIR -f DIR/compose.yaml …
//
// so the lab's .env (project name, passwords) applies as it would for a
// user typing docker compose in the directory. Without Docker, or without
// its engine or compose plugin, the error is one sentence saying what is
// missing (see ErrNoDocker).
package compose

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/render"
)

// ErrNoDocker is wrapped by every error that means Docker cannot be used
// at all here.
var ErrNoDocker = errors.New("docker is not usable")

// dockerError is an ErrNoDocker with its one-sentence explanation.
type dockerError struct{ msg string }

func (e *dockerError) Error() string { return e.msg }
func (e *dockerError) Unwrap() error { return ErrNoDocker }

// Compose is one lab directory's stack.
type Compose struct {
	Dir    string
	Docker string // path of the docker executable
	// Env is the environment of docker; nil means this process's.
	Env []string
}

// New finds docker on PATH. A missing executable is an ErrNoDocker.
func New(dir string) (*Compose, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "compose.yaml")); err != nil {
		return nil, fmt.Errorf("%s has no compose.yaml; is it a rendered lab directory (labgen render)?", dir)
	}
	p, err := exec.LookPath("docker")
	if err != nil {
		return nil, &dockerError{"Docker is needed to run the lab's services, and no docker command was found on PATH: install Docker Engine or Docker Desktop (with the compose plugin), or start the services yourself and run with --no-up and the endpoint flags."}
	}
	return &Compose{Dir: abs, Docker: p}, nil
}

// Command is a docker invocation as the record shows it.
func (c *Compose) Command(args ...string) string {
	return "docker " + strings.Join(c.args(args...), " ")
}

func (c *Compose) args(args ...string) []string {
	return append([]string{"compose", "--project-directory", c.Dir, "-f", filepath.Join(c.Dir, "compose.yaml")}, args...)
}

// run runs docker compose ARGS and returns its combined output. A failure
// that shows Docker itself is unusable becomes an ErrNoDocker.
func (c *Compose) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.Docker, c.args(args...)...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return out.Bytes(), ctx.Err()
		}
		if de := diagnose(out.String()); de != nil {
			return out.Bytes(), de
		}
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("docker compose %s failed: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

// diagnose recognises the messages of a Docker that cannot work at all.
func diagnose(out string) error {
	low := strings.ToLower(out)
	switch {
	case strings.Contains(low, "cannot connect to the docker daemon"),
		strings.Contains(low, "is the docker daemon running"),
		strings.Contains(low, "error during connect"):
		return &dockerError{"Docker is installed but its engine is not running or not reachable (" + firstLine(out) + "): start Docker and try again."}
	case strings.Contains(low, "'compose' is not a docker command"),
		strings.Contains(low, "unknown command: docker compose"),
		// Without the plugin, docker reads compose's flags as its own.
		strings.Contains(low, "unknown flag: --project-directory"),
		strings.Contains(low, "unknown shorthand flag") && strings.Contains(low, "compose"):
		return &dockerError{"Docker is installed without the compose plugin (" + firstLine(out) + "): install docker-compose-plugin (Docker Compose v2)."}
	case strings.Contains(low, "permission denied") && strings.Contains(low, "docker.sock"):
		return &dockerError{"Docker's engine refused this user (" + firstLine(out) + "): add the user to the docker group or run with the rights Docker needs."}
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Service is one service's state as docker compose ps reports it.
type Service struct {
	Service  string `json:"Service"`
	Name     string `json:"Name"`
	State    string `json:"State"`  // created, running, exited, restarting, …
	Health   string `json:"Health"` // healthy, unhealthy, starting, "" (no healthcheck)
	ExitCode int    `json:"ExitCode"`
}

// Ready tells whether the service is where up wants it: healthy, running
// without a healthcheck, or a one-shot container that exited 0.
func (s Service) Ready() bool {
	switch {
	case s.State == "running" && (s.Health == "" || s.Health == "healthy"):
		return true
	case s.State == "exited" && s.ExitCode == 0:
		return true
	}
	return false
}

// Failed tells whether the service cannot become ready by waiting.
func (s Service) Failed() bool {
	return s.State == "exited" && s.ExitCode != 0 || s.State == "dead" || s.Health == "unhealthy"
}

// Describe is a short state for progress lines: "healthy", "starting",
// "exited (0)".
func (s Service) Describe() string {
	switch {
	case s.State == "exited":
		return fmt.Sprintf("exited (%d)", s.ExitCode)
	case s.Health != "":
		return s.Health
	}
	return s.State
}

// PS lists the stack's containers, stopped ones included.
func (c *Compose) PS(ctx context.Context) ([]Service, error) {
	out, err := c.run(ctx, "ps", "--all", "--format", "json")
	if err != nil {
		return nil, err
	}
	return parsePS(out)
}

// parsePS reads docker compose ps --format json: one JSON object per line
// (Compose ≥ 2.21) or one JSON array (older).
func parsePS(out []byte) ([]Service, error) {
	out = bytes.TrimSpace(out)
	var svcs []Service
	if len(out) == 0 {
		return nil, nil
	}
	if out[0] == '[' {
		if err := json.Unmarshal(out, &svcs); err != nil {
			return nil, fmt.Errorf("docker compose ps: %w", err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			var s Service
			if err := json.Unmarshal(line, &s); err != nil {
				return nil, fmt.Errorf("docker compose ps: %w", err)
			}
			svcs = append(svcs, s)
		}
	}
	sort.Slice(svcs, func(i, j int) bool { return svcs[i].Service < svcs[j].Service })
	return svcs, nil
}

// Progress receives the state of each service whenever it changes.
type Progress func(s Service)

// UpOptions tune Up.
type UpOptions struct {
	// Build builds images before starting (docker compose up --build).
	Build bool
	// Timeout bounds the wait for health (default 10 minutes).
	Timeout time.Duration
	// Interval between polls (default 2 s).
	Interval time.Duration
	// Except names services not to start now (labgen run holds back the
	// services that submit Flink jobs until the engines have checked
	// them); what the others depend on still starts.
	Except []string
}

// Up starts the stack detached and waits until every service is ready
// (healthy, running, or exited 0 for one-shot services), calling progress
// on every change. A service that exits non-zero or turns unhealthy ends
// the wait with an error naming it and its last log lines.
func (c *Compose) Up(ctx context.Context, opt UpOptions, progress Progress) ([]Service, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.Interval <= 0 {
		opt.Interval = 2 * time.Second
	}
	args := []string{"up", "--detach"}
	if opt.Build {
		args = append(args, "--build")
	}
	if len(opt.Except) > 0 {
		out, err := c.run(ctx, "config", "--services")
		if err != nil {
			return nil, err
		}
		for _, svc := range strings.Fields(string(out)) {
			if !slices.Contains(opt.Except, svc) {
				args = append(args, svc)
			}
		}
	}
	if _, err := c.run(ctx, args...); err != nil {
		return nil, err
	}
	last := map[string]string{}
	var svcs []Service
	err := proc.Poll(ctx, time.Now().Add(opt.Timeout), proc.Pace{Interval: opt.Interval}, nil, func(context.Context) error {
		var err error
		if svcs, err = c.PS(ctx); err != nil {
			return proc.Final(err)
		}
		ready := len(svcs) > 0
		var failed []Service
		for _, s := range svcs {
			if d := s.Describe(); last[s.Service] != d {
				last[s.Service] = d
				if progress != nil {
					progress(s)
				}
			}
			if !s.Ready() {
				ready = false
			}
			if s.Failed() {
				failed = append(failed, s)
			}
		}
		if ready {
			return nil
		}
		if len(failed) > 0 {
			var parts []string
			for _, s := range failed {
				logs, _ := c.run(ctx, "logs", "--no-color", "--tail", "20", s.Service)
				parts = append(parts, fmt.Sprintf("%s is %s; its last log lines:\n%s", s.Service, s.Describe(), strings.TrimRight(string(logs), "\n")))
			}
			return proc.Final(errors.New(strings.Join(parts, "\n")))
		}
		return errNotReady
	})
	var late *proc.Late
	if errors.As(err, &late) {
		var waiting []string
		for _, s := range svcs {
			if !s.Ready() {
				waiting = append(waiting, s.Service+" ("+s.Describe()+")")
			}
		}
		return svcs, fmt.Errorf("services not ready after %s: %s", opt.Timeout, strings.Join(waiting, ", "))
	}
	return svcs, err
}

var errNotReady = errors.New("not every service is ready")

// Down stops and removes the stack; with volumes its named volumes too.
func (c *Compose) Down(ctx context.Context, volumes bool) (string, error) {
	args := []string{"down", "--remove-orphans"}
	if volumes {
		args = append(args, "--volumes")
	}
	out, err := c.run(ctx, args...)
	return string(out), err
}

// Actions a compose step may take on one service. pause and unpause
// freeze and thaw the service's containers with the cgroup freezer: the
// processes stay, frozen, and a restart policy (which acts on an exit)
// leaves them alone.
var Actions = []string{"stop", "start", "restart", "pause", "unpause"}

// Service runs one of Actions on one service and returns docker's output.
func (c *Compose) Service(ctx context.Context, action, service string) (string, error) {
	ok := false
	for _, a := range Actions {
		ok = ok || a == action
	}
	if !ok {
		return "", fmt.Errorf("unknown compose action %q (want %s)", action, strings.Join(Actions, ", "))
	}
	out, err := c.run(ctx, action, service)
	return string(out), err
}

// Exec runs a command in a running service's container, without a TTY,
// and returns its output (labgen smoke looks into the warehouse volume
// through the JobManager, as ./stream-lab smoke does).
func (c *Compose) Exec(ctx context.Context, service string, argv ...string) (string, error) {
	out, err := c.run(ctx, append([]string{"exec", "-T", service}, argv...)...)
	return string(out), err
}

// WarehouseFile is the first file named pattern below dir of the lake
// warehouse, looked for in the JobManager's container, as the rendered
// smoke script does.
func (c *Compose) WarehouseFile(ctx context.Context, dir, pattern string) (string, error) {
	root := render.WarehouseDir + "/" + dir
	out, err := c.Exec(ctx, "jobmanager", "find", root, "-type", "f", "-name", pattern)
	if err != nil {
		return "", err
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); first != "" {
		return first, nil
	}
	return "", fmt.Errorf("no %s file under %s yet", pattern, root)
}
