// Package flinktest replays answers recorded from a real Flink cluster, for
// tests of code that talks to Flink's REST API and SQL gateway.
//
// A cassette is a JSON file of interactions (API, method, path, request
// body, status, answer) recorded through Recorder from a live cluster; see
// runtime/flinkapi/testdata/README.md for how the fixtures were made. Replay
// starts two httptest servers, one for the REST API and one for the SQL
// gateway, that answer each request with the recorded answers for the same
// method and path, in recorded order, repeating the last one when the code
// under test asks more often than the recording did. A request nobody
// recorded, or one whose body differs from the recording, fails the test.
package flinktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Cassette is a recording.
type Cassette struct {
	FlinkVersion string        `json:"flink_version"`
	Recorded     string        `json:"recorded"`
	Scenario     string        `json:"scenario"`
	Interactions []Interaction `json:"interactions"`
}

// Interaction is one request and its answer.
type Interaction struct {
	// API is "rest" or "gateway".
	API    string          `json:"api"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"request,omitempty"`
	Status int             `json:"status"`
	Answer json.RawMessage `json:"answer,omitempty"`
	// Text is the answer when it is not JSON.
	Text string `json:"answer_text,omitempty"`
}

// Dir is the directory of the recorded fixtures.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// Load reads a cassette by file name (relative to Dir) or path.
func Load(t testing.TB, name string) *Cassette {
	t.Helper()
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(Dir(), name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("flinktest: %v", err)
	}
	var c Cassette
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("flinktest: %s: %v", path, err)
	}
	return &c
}

// Server replays cassettes.
type Server struct {
	REST, Gateway string

	t     testing.TB
	mu    sync.Mutex
	queue map[string][]Interaction // api method path → remaining answers
	last  map[string]Interaction
	seen  []string
}

// Replay serves the interactions of the named cassettes; the servers are
// closed when t ends.
func Replay(t testing.TB, names ...string) *Server {
	t.Helper()
	s := &Server{t: t, queue: map[string][]Interaction{}, last: map[string]Interaction{}}
	for _, n := range names {
		c := Load(t, n)
		for _, in := range c.Interactions {
			k := key(in.API, in.Method, in.Path)
			s.queue[k] = append(s.queue[k], in)
		}
	}
	rest := httptest.NewServer(s.handler("rest"))
	gw := httptest.NewServer(s.handler("gateway"))
	t.Cleanup(rest.Close)
	t.Cleanup(gw.Close)
	s.REST, s.Gateway = rest.URL, gw.URL
	return s
}

func key(api, method, path string) string { return api + " " + method + " " + path }

// Requests lists the requests served so far, as "api METHOD path".
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *Server) handler(api string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		k := key(api, r.Method, r.URL.RequestURI())
		s.mu.Lock()
		s.seen = append(s.seen, k)
		q := s.queue[k]
		var in Interaction
		switch {
		case len(q) > 0:
			in = q[0]
			s.queue[k] = q[1:]
			s.last[k] = in
		default:
			var ok bool
			in, ok = s.last[k]
			if !ok {
				s.mu.Unlock()
				s.t.Errorf("flinktest: no recorded answer for %s", k)
				http.Error(w, "flinktest: not recorded: "+k, http.StatusTeapot)
				return
			}
		}
		s.mu.Unlock()
		if len(in.Body) > 0 && !jsonEqual(in.Body, body) {
			s.t.Errorf("flinktest: %s: request body %s, recorded %s", k, body, in.Body)
			http.Error(w, "flinktest: request differs from the recording", http.StatusTeapot)
			return
		}
		if len(in.Answer) > 0 {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(in.Status)
			_, _ = w.Write(in.Answer)
			return
		}
		w.WriteHeader(in.Status)
		_, _ = io.WriteString(w, in.Text)
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Recorder is an http.RoundTripper that passes requests to a live cluster
// and keeps every exchange.
type Recorder struct {
	Next          http.RoundTripper
	REST, Gateway string // base URLs, to tell the two APIs apart

	mu           sync.Mutex
	interactions []Interaction
}

// RoundTrip implements http.RoundTripper.
func (rec *Recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	var reqBody []byte
	if r.Body != nil {
		reqBody, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	next := rec.Next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	api := "rest"
	if rec.Gateway != "" && strings.HasPrefix(r.URL.String(), rec.Gateway) {
		api = "gateway"
	}
	in := Interaction{API: api, Method: r.Method, Path: r.URL.RequestURI(), Status: resp.StatusCode}
	if len(reqBody) > 0 {
		in.Body = compact(reqBody)
	}
	if json.Valid(b) && len(bytes.TrimSpace(b)) > 0 {
		in.Answer = compact(b)
	} else {
		in.Text = string(b)
	}
	rec.mu.Lock()
	rec.interactions = append(rec.interactions, in)
	rec.mu.Unlock()
	return resp, nil
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return append(json.RawMessage(nil), b...)
	}
	return buf.Bytes()
}

// Save writes what was recorded since the last Save as a cassette.
func (rec *Recorder) Save(path, flinkVersion, scenario, how string) error {
	rec.mu.Lock()
	ins := rec.interactions
	rec.interactions = nil
	rec.mu.Unlock()
	c := Cassette{FlinkVersion: flinkVersion, Scenario: scenario,
		Recorded: fmt.Sprintf("%s on %s", how, time.Now().UTC().Format("2006-01-02")), Interactions: ins}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
