package testproc

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// EnvVar selects what happens when a server's runtime is missing:
//
//   - unset or empty: the test is skipped, with what to install in the
//     reason;
//   - "require": the test fails (CI sets this);
//   - "off": the tests are always skipped.
//
// Any other value fails the test, so a typo cannot turn tests off.
const EnvVar = "LABGEN_TEST_SERVERS"

// Require is EnvVar's value that turns a missing runtime into a failure.
const Require = "require"

// Mode returns EnvVar's value ("" or Require) after skipping t when it is
// "off" ("<who>: <what> are turned off (…=off)") and failing t when it is
// anything else.
func Mode(t testing.TB, who, what string) string {
	t.Helper()
	mode := os.Getenv(EnvVar)
	switch mode {
	case "", Require:
	case "off":
		t.Skipf("%s: %s are turned off (%s=off)", who, what, EnvVar)
	default:
		t.Fatalf("%s: %s=%q: want unset, \"require\" or \"off\"", who, EnvVar, mode)
	}
	return mode
}

// Missing ends t because what a server needs is not installed (msg says
// what): it fails t when mode is Require and skips it otherwise.
func Missing(t testing.TB, mode, msg string) {
	t.Helper()
	if mode == Require {
		t.Fatalf("%s; %s=require", msg, EnvVar)
	}
	t.Skipf("%s; set %s=require to fail instead", msg, EnvVar)
}

// ErrStopped is returned by Shared.Get after Servers.Run stopped the
// server, that is after the test binary's tests ended.
var ErrStopped = errors.New("already stopped (asked for after Main's tests ended?)")

// Servers are the servers one test binary shares, stopped by Run after
// its last test. Declare one per package as a variable.
type Servers struct {
	// Teardown starts the message that reports a failure to stop them,
	// e.g. "testsrv: stopping servers".
	Teardown string

	active atomic.Bool
	mu     sync.Mutex
	stops  []func() error
}

// Run runs the tests through run (usually (*testing.M).Run, or the Run of
// another package of servers to chain them), then stops the servers they
// started and returns the exit code for os.Exit.
func (s *Servers) Run(m *testing.M, run func(*testing.M) int) int {
	s.active.Store(true)
	code := run(m)
	if err := s.stopAll(); err != nil {
		// The tests themselves passed or failed already; a teardown problem
		// is reported but does not change their verdict.
		fmt.Fprintf(os.Stderr, "%s: %v\n", s.Teardown, err)
	}
	return code
}

// Active tells whether Run is in use: without it nobody would stop the
// shared servers.
func (s *Servers) Active() bool { return s.active.Load() }

// SetActive is for tests of the packages themselves.
func (s *Servers) SetActive(on bool) { s.active.Store(on) }

func (s *Servers) register(stop func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stops = append(s.stops, stop)
}

func (s *Servers) stopAll() error {
	s.mu.Lock()
	stops := s.stops
	s.stops = nil
	s.mu.Unlock()
	var errs []error
	for _, stop := range stops {
		errs = append(errs, stop())
	}
	return errors.Join(errs...)
}

// Shared is one server per test binary. It remembers a start failure, so
// later tests fail fast with the same error instead of retrying.
type Shared[T any] struct {
	mu      sync.Mutex
	started bool
	stopped bool
	srv     *T
	err     error
}

// Get returns the server, starting it with start on first use and
// registering the stop function start returns with servers. Every later
// call returns the same server or the same error; after servers stopped it,
// the error is ErrStopped.
func (s *Shared[T]) Get(servers *Servers, start func() (*T, func() error, error)) (*T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		var stop func() error
		s.srv, stop, s.err = start()
		if s.err == nil {
			servers.register(func() error {
				s.mu.Lock()
				s.stopped = true
				s.mu.Unlock()
				return stop()
			})
		}
	}
	if s.stopped {
		return nil, ErrStopped
	}
	return s.srv, s.err
}

// Started is the server Get started, also after it was stopped (nil if
// none was): for tests that check the teardown.
func (s *Shared[T]) Started() *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// Name derives a name (of a database, a user, a topic) from the test name,
// so a leftover one in a server log points at its test: "t", sep, at most
// max bytes of the test name's [a-z0-9] with sep for every other
// character, sep and n (a sequence number that keeps names unique).
func Name(t testing.TB, sep byte, max int, n int64) string {
	var b strings.Builder
	b.WriteByte('t')
	b.WriteByte(sep)
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= max {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte(sep)
		}
	}
	fmt.Fprintf(&b, "%c%d", sep, n)
	return b.String()
}
