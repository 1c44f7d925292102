package testproc

import (
	"errors"
	"testing"
)

func TestName(t *testing.T) {
	if got := Name(t, '_', 40, 7); got != "t_testname_7" {
		t.Errorf("Name = %q", got)
	}
	t.Run("Sub Test/x", func(t *testing.T) {
		if got := Name(t, '-', 12, 1); got != "t-testname-s-1" {
			t.Errorf("Name = %q", got)
		}
	})
}

// A shared server starts once, its stop runs in Run's teardown, and Get
// says so afterwards.
func TestShared(t *testing.T) {
	var servers Servers
	var sh Shared[string]
	starts, stops := 0, 0
	start := func() (*string, func() error, error) {
		starts++
		s := "srv"
		return &s, func() error { stops++; return nil }, nil
	}
	a, err := sh.Get(&servers, start)
	b, _ := sh.Get(&servers, start)
	if err != nil || a != b || starts != 1 {
		t.Fatalf("Get: %v, %v, %v, %d starts", a, b, err, starts)
	}
	if err := servers.stopAll(); err != nil || stops != 1 {
		t.Fatalf("stopAll: %v, %d stops", err, stops)
	}
	if _, err := sh.Get(&servers, start); !errors.Is(err, ErrStopped) || starts != 1 {
		t.Errorf("Get after the teardown: %v", err)
	}
	if sh.Started() != a {
		t.Error("Started forgot the server")
	}

	// A failed start is remembered.
	var failing Shared[string]
	boom := errors.New("boom")
	for range 2 {
		if _, err := failing.Get(&servers, func() (*string, func() error, error) { starts++; return nil, nil, boom }); err != boom {
			t.Errorf("failed start: %v", err)
		}
	}
	if starts != 2 {
		t.Errorf("%d starts, want 2", starts)
	}
}
