// Package flinkapi is a small client of the two HTTP APIs of a Flink
// session cluster that labgen uses: the REST API of the JobManager (the one
// the Flink UI reads: jobs, vertices, checkpoints, exceptions, metrics) and
// the SQL gateway's REST API (sessions, statements, results).
//
// Only what the runtime needs is modelled. Responses were checked against a
// real Flink 1.20.1 (see testdata/README.md for how the fixtures the tests
// replay were recorded). Errors keep Flink's own words: a failed statement's
// error is the exception chain the gateway returned, without stack frames.
package flinkapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Client talks to one Flink cluster: its REST API and its SQL gateway.
// Either base URL may be empty when only the other API is used.
type Client struct {
	REST    string // e.g. http://127.0.0.1:8081
	Gateway string // e.g. http://127.0.0.1:8083
	HTTP    *http.Client

	// metricsRead is when each job's metrics were last asked for (see
	// JobMetrics).
	mu          sync.Mutex
	metricsRead map[string]time.Time
}

// New returns a client; base URLs are used without a trailing slash.
func New(rest, gateway string) *Client {
	return &Client{
		REST:    strings.TrimRight(rest, "/"),
		Gateway: strings.TrimRight(gateway, "/"),
		HTTP:    &http.Client{Timeout: 30 * time.Second},
	}
}

// Error is an answer of Flink other than 2xx. Message is the exception
// chain Flink reported, stack frames left out.
type Error struct {
	Method, URL string
	Status      int
	Message     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Status, e.Message)
}

// NotFound tells whether err is a 404 from Flink (an unknown job, an
// expired session or operation).
func NotFound(err error) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Status == http.StatusNotFound
}

// ExceptionChain reduces a Java exception text as Flink sends it to the
// lines that say what happened: every line except stack frames ("\tat …",
// "\t... N more") and the gateway's "<Exception on server side:" wrapper.
// The remaining lines are Flink's own words, unchanged.
func ExceptionChain(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "", strings.HasPrefix(t, "at "), strings.HasPrefix(t, "... "),
			t == "<Exception on server side:", t == "End of exception on server side>":
			continue
		}
		out = append(out, strings.TrimRight(line, " \t\r"))
	}
	return strings.Join(out, "\n")
}

// RootCause is the innermost "Caused by:" of a Java exception text as Flink
// sends it (the SQL gateway's and the REST API's errors, a job's root
// exception), with every line of its message and without stack frames:
// what went wrong, below Flink's wrappers (SqlGatewayException, "Failed to
// execute the operation", "Recovery is suppressed"). A text without a
// "Caused by:" is its own root cause.
func RootCause(s string) string {
	lines := strings.Split(ExceptionChain(s), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "Caused by: ") {
			at = i
		}
	}
	if at < 0 {
		return strings.TrimSpace(strings.Join(lines, "\n"))
	}
	lines[at] = strings.TrimPrefix(strings.TrimSpace(lines[at]), "Caused by: ")
	return strings.TrimSpace(strings.Join(lines[at:], "\n"))
}

// Failure shows a Java exception text for a record: its root cause first
// (what a reader needs), then the whole chain without stack frames, unless
// the chain is the root cause alone.
func Failure(s string) string {
	root, chain := RootCause(s), strings.TrimSpace(ExceptionChain(s))
	if root == chain {
		return root
	}
	return root + "\n\nException chain (stack frames left out):\n" + chain
}

// RootCause is the innermost cause of the error Flink answered.
func (e *Error) RootCause() string { return RootCause(e.Message) }

func (c *Client) do(ctx context.Context, method, base, path string, body, out any) error {
	var rd io.Reader
	contentType := ""
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd, contentType = bytes.NewReader(b), "application/json"
	}
	return c.send(ctx, method, base, path, contentType, rd, out)
}

// send is one call with a body of its own type (a jar upload's multipart
// form); Flink's errors come back as *Error.
func (c *Client) send(ctx context.Context, method, base, path, contentType string, rd io.Reader, out any) error {
	if base == "" {
		return fmt.Errorf("no Flink URL for %s", path)
	}
	u := base + path
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		return &Error{Method: method, URL: u, Status: resp.StatusCode, Message: errorMessage(b)}
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s %s: unexpected answer (%v): %s", method, u, err, abbrev(string(b), 300))
	}
	return nil
}

// errorMessage turns Flink's {"errors": [...]} into text.
func errorMessage(b []byte) string {
	var e struct {
		Errors []string `json:"errors"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Errors) > 0 {
		var parts []string
		for _, s := range e.Errors {
			if s = ExceptionChain(s); s != "" && s != "Internal server error." {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			parts = e.Errors[:1]
		}
		return strings.Join(parts, "\n")
	}
	return abbrev(strings.TrimSpace(string(b)), 2000)
}

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func pathEscape(s string) string { return url.PathEscape(s) }
