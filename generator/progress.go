package generator

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress reports a run as it goes. On a terminal it keeps one live line
// (rewritten in place several times a second); elsewhere, as in a compose
// service's log, it prints a line every Interval. Log messages (outages,
// recovery) are printed in between without garbling the live line.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	stats    *Stats
	terminal bool
	interval time.Duration
	now      func() time.Time
	shown    bool // a live line is on screen

	// rate over a sliding window of samples
	samples []sample
	stop    chan struct{}
	done    chan struct{}
}

type sample struct {
	t       time.Time
	parents int64
}

// NewProgress prepares a reporter; interval is the log line period when
// not on a terminal (0 means 10s).
func NewProgress(w io.Writer, stats *Stats, terminal bool, interval time.Duration) *Progress {
	if interval <= 0 {
		interval = 10 * time.Second
	}
	return &Progress{w: w, stats: stats, terminal: terminal, interval: interval, now: time.Now}
}

// Start begins the periodic reports.
func (p *Progress) Start() {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	period := p.interval
	if p.terminal {
		period = 250 * time.Millisecond
	}
	p.sample()
	go func() {
		defer close(p.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.report()
			}
		}
	}()
}

// Stop ends the reports and clears the live line.
func (p *Progress) Stop() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Log prints a message on its own line.
func (p *Progress) Log(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if p.terminal {
		fmt.Fprintln(p.w, msg)
	} else {
		fmt.Fprintf(p.w, "%s %s\n", p.now().Format("2006-01-02 15:04:05"), msg)
	}
}

func (p *Progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// sample records the parent count and returns the rate over the window
// (parents per second), or -1 before there are two samples.
func (p *Progress) sample() float64 {
	now := p.now()
	s := p.stats.Snapshot()
	p.samples = append(p.samples, sample{t: now, parents: s.Parents()})
	// Keep five seconds of samples on a terminal, one interval otherwise.
	window := 5 * time.Second
	if !p.terminal {
		window = p.interval
	}
	for len(p.samples) > 2 && now.Sub(p.samples[1].t) >= window {
		p.samples = p.samples[1:]
	}
	if len(p.samples) < 2 {
		return -1
	}
	a, b := p.samples[0], p.samples[len(p.samples)-1]
	if dt := b.t.Sub(a.t).Seconds(); dt > 0 {
		return float64(b.parents-a.parents) / dt
	}
	return -1
}

func (p *Progress) report() {
	rate := p.sample()
	line := p.stats.Snapshot().Line(rate)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "%s %s\n", p.now().Format("2006-01-02 15:04:05"), line)
}
