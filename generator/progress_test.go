package generator

import (
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLines(t *testing.T) {
	lab := loadLab(t)
	plans := compile(t, lab, 1)
	stats := NewStats(plans)
	ev := Event{Follow: -1}
	counts := make([]int64, len(stats.counters))
	counts[stats.counter(0, &ev)] = 1234
	paid := Event{Follow: 0, Outcome: 2} // FAILED, NONE, PAID
	counts[stats.counter(0, &paid)] = 1000
	stats.add(counts)
	stats.pending.Store(61)
	line := stats.Snapshot().Line(5)
	if want := "orders 1,234 · payments 1,000 (FAILED 0, PAID 1,000) · pending 61 · 5.0 orders/s"; line != want {
		t.Errorf("line:\n %s\nwant\n %s", line, want)
	}

	// Not on a terminal: timestamped lines every interval, messages in
	// between.
	var out syncBuf
	p := NewProgress(&out, stats, false, 30*time.Millisecond)
	p.Start()
	time.Sleep(100 * time.Millisecond)
	p.Log("MySQL write failed: boom; retrying with backoff")
	p.Stop()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || !strings.Contains(out.String(), " MySQL write failed: boom") || strings.Contains(out.String(), "\r") {
		t.Errorf("log output:\n%s", out.String())
	}
	for _, l := range lines {
		if _, err := time.Parse("2006-01-02 15:04:05", l[:19]); err != nil {
			t.Errorf("line without a time stamp: %q", l)
		}
	}

	// On a terminal: one line rewritten in place; a message clears it.
	var term syncBuf
	p = NewProgress(&term, stats, true, 0)
	p.Start()
	time.Sleep(600 * time.Millisecond)
	p.Log("hello")
	p.Stop()
	s := term.String()
	if !strings.HasPrefix(s, "\r\033[Korders 1,234") || !strings.Contains(s, "\r\033[Khello\n") || strings.Count(s, "\n") != 1 {
		t.Errorf("terminal output: %q", s)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %s, want %s", n, got, want)
		}
	}
}
