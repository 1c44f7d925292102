package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Forward is a kubectl port-forward from 127.0.0.1 to a port of a
// Service or pod. When kubectl ends after the forward was ready (its pod
// went away: a restart, a rollout), it is started again on the same
// local port, so that what points at it keeps working; Close ends it.
type Forward struct {
	// Target is what kubectl forwards to (svc/mysql, pod/kafka-dual-role-0).
	Target string
	// Port is the target's port, Local the port on 127.0.0.1.
	Port, Local int

	// OnRestart, if set before Ready is called, hears of each restart.
	OnRestart func(why string)

	k  Kubectl
	ns string

	mu       sync.Mutex
	cmd      *exec.Cmd
	closed   bool
	ready    bool
	restarts int
	stderr   tailBuffer
	closing  chan struct{}
	done     chan struct{}
	// exitErr is why kubectl ended for good (before the forward was
	// ready, or its context ended).
	exitErr error
}

// StartForward starts kubectl port-forward -n ns target local:port on
// 127.0.0.1; local 0 takes a free port. The forward ends when ctx does
// or with Close; Ready tells when it answers.
func StartForward(ctx context.Context, k Kubectl, ns, target string, port, local int) (*Forward, error) {
	if local == 0 {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		local = p
	} else if err := portFree(local); err != nil {
		return nil, err
	}
	f := &Forward{Target: target, Port: port, Local: local, k: k, ns: ns,
		closing: make(chan struct{}), done: make(chan struct{})}
	if err := f.start(ctx); err != nil {
		return nil, err
	}
	go f.supervise(ctx)
	return f, nil
}

// Addr is the forward's local address.
func (f *Forward) Addr() string { return "127.0.0.1:" + strconv.Itoa(f.Local) }

func (f *Forward) String() string {
	return fmt.Sprintf("%s %d → %s", f.Target, f.Port, f.Addr())
}

// Args are kubectl's arguments for the forward (after Kubectl.Args).
func (f *Forward) Args() []string {
	return []string{"port-forward", "-n", f.ns, f.Target, fmt.Sprintf("%d:%d", f.Local, f.Port), "--address", "127.0.0.1"}
}

func (f *Forward) start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("closed")
	}
	cmd := f.k.command(ctx, f.Args()...)
	cmd.Stderr = &f.stderr
	setParentDeath(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("kubectl port-forward %s: %w", f.Target, err)
	}
	f.cmd = cmd
	return nil
}

// supervise waits for kubectl and starts it again while the forward is
// ready and open.
func (f *Forward) supervise(ctx context.Context) {
	defer close(f.done)
	quick := 0
	for {
		f.mu.Lock()
		cmd := f.cmd
		f.mu.Unlock()
		began := time.Now()
		err := cmd.Wait()
		f.mu.Lock()
		closed, ready := f.closed, f.ready
		why := f.stderr.last()
		f.mu.Unlock()
		if closed {
			return
		}
		if why == "" && err != nil {
			why = err.Error()
		}
		if !ready || ctx.Err() != nil {
			f.mu.Lock()
			f.exitErr = fmt.Errorf("kubectl port-forward -n %s %s %d:%d ended: %s", f.ns, f.Target, f.Local, f.Port, orDash(why))
			f.mu.Unlock()
			return
		}
		// Again at once after a long life; a pod that stays away (a
		// service stopped by a step) is asked for less and less often.
		if time.Since(began) > 30*time.Second {
			quick = 0
		}
		delay := min(time.Second<<quick, 16*time.Second)
		quick = min(quick+1, 4)
		if f.OnRestart != nil {
			f.OnRestart(fmt.Sprintf("kubectl port-forward %s ended (%s); starting it again on %s in %s", f.Target, orDash(why), f.Addr(), delay))
		}
		select {
		case <-f.closing:
			return
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		if err := f.start(ctx); err != nil {
			f.mu.Lock()
			if f.exitErr == nil && !f.closed {
				f.exitErr = err
			}
			f.mu.Unlock()
			return
		}
		f.mu.Lock()
		f.restarts++
		f.mu.Unlock()
	}
}

// Restarts counts the times kubectl was started again.
func (f *Forward) Restarts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restarts
}

// Ready waits until the local port takes a TCP connection, or fails when
// kubectl ends first (with its message) or after timeout.
func (f *Forward) Ready(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", f.Addr(), time.Second)
		if err == nil {
			c.Close()
			f.mu.Lock()
			f.ready = true
			f.mu.Unlock()
			// kubectl may have ended between the dial and now.
			select {
			case <-f.done:
				return f.Err()
			default:
				return nil
			}
		}
		select {
		case <-f.done:
			return f.Err()
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			msg := f.stderr.last()
			if msg != "" {
				msg = ": " + msg
			}
			return fmt.Errorf("kubectl port-forward -n %s %s: %s did not answer within %s%s", f.ns, f.Target, f.Addr(), timeout, msg)
		}
	}
}

// Err is why the forward ended by itself, if it did.
func (f *Forward) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.exitErr == nil && !f.closed {
		select {
		case <-f.done:
			return fmt.Errorf("kubectl port-forward %s ended", f.Target)
		default:
		}
	}
	return f.exitErr
}

// Close ends kubectl and waits until it has.
func (f *Forward) Close() error {
	f.mu.Lock()
	if !f.closed {
		f.closed = true
		close(f.closing)
		if f.cmd != nil && f.cmd.Process != nil {
			_ = f.cmd.Process.Kill()
		}
	}
	f.mu.Unlock()
	<-f.done
	return nil
}

// freePort is a port of 127.0.0.1 nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// portFree tells whether a fixed local port can be had.
func portFree(port int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("127.0.0.1:%d is taken (%v)", port, err)
	}
	return ln.Close()
}

// tailBuffer keeps the end of what kubectl writes to its standard error.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

// last is the last non-empty line written.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Forwards are the port-forwards of one run.
type Forwards []*Forward

// Close ends them all.
func (fs Forwards) Close() {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Close()
		}()
	}
	wg.Wait()
}
