// Package console serves labgen's local query console: a web page and a
// JSON API that run read-only SQL on a lab's MySQL and ClickHouse.
//
// # API
//
//	GET  /api/presets  the lab, its engines and its presets:
//	                   {"lab": {"name", "title"},
//	                    "engines": [{"name", "title", "available", "unavailable"}],
//	                    "presets": [{"name", "engine", "title", "description", "sql", "unavailable"}],
//	                    "limits": {"max_rows", "max_bytes", "timeout"}}
//	POST /api/query    {"engine": "mysql"|"postgres"|"clickhouse", "sql": "…"} →
//	                   200 {"engine", "columns": [{"name", "type"}], "rows": [[…]],
//	                        "row_count", "truncated", "elapsed_ms", "elapsed"}
//
// Errors are {"error": "…", "kind": "…"} with a status that says whose
// mistake it was:
//
//	400 bad_request      the body is not {"engine", "sql"} JSON
//	400 unknown_engine   the engine is neither mysql nor clickhouse
//	403 refused          the statement is not a single read-only statement (package sqlread)
//	409 unavailable      the engine is not part of this lab or not configured
//	413 too_large        the body or the SQL is too long
//	415 bad_request      the request is not Content-Type: application/json
//	422 query            the database refused or failed the query; its message verbatim
//	504 timeout          the query ran longer than the time limit and was stopped
//
// # Safety
//
// Read-only is enforced twice: sqlread.Check refuses anything but a single
// SELECT, WITH … SELECT, SHOW, DESCRIBE or EXPLAIN, and the engines run on
// read-only sessions (package query) as the lab's read-only users. Rows are
// bounded by Limits and queries by a timeout; at most a few run at once.
//
// The page loads nothing from the network but the console itself (a
// Content-Security-Policy says so to the browser) and renders every value
// as text. Requests whose Host is a DNS name other than localhost are
// refused, so a web page elsewhere cannot reach the console through DNS
// rebinding; POST /api/query needs a JSON content type, which browsers
// do not send across origins without a preflight the console never grants.
package console

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
	"github.com/labgen/labgen/sqlread"
)

//go:embed web
var webFS embed.FS

// Limits on requests.
const (
	maxBody = 256 << 10 // bytes of a POST /api/query body
	maxSQL  = 64 << 10  // bytes of SQL
)

// Config is what a console serves.
type Config struct {
	// Lab gives the presets and the lab's name; required.
	Lab *schemas.Lab
	// Engines are the open engines by name (query.MySQL, query.ClickHouse).
	// The console does not close them.
	Engines map[string]query.Engine
	// Unavailable says why an engine of the lab has no entry in Engines
	// (shown on the page and returned by the API).
	Unavailable map[string]string
	// Limits bound every query; zero fields take query.DefaultLimits.
	Limits query.Limits
	// MaxConcurrent queries at once; zero means 4.
	MaxConcurrent int
	// AllowHosts are extra host names accepted in the Host header, beside
	// IP addresses and localhost.
	AllowHosts []string
	// Log receives one line per query; nil discards.
	Log *log.Logger
}

// Server is the console's http.Handler.
type Server struct {
	cfg   Config
	check func(engine, sql string) error // sqlread.Check; tests replace it
	sem   chan struct{}
	mux   *http.ServeMux
	index []byte
}

// engines the console knows, in the order the page shows them.
var engineTitles = []struct{ name, title string }{
	{query.MySQL, "MySQL"},
	{query.Postgres, "PostgreSQL"},
	{query.ClickHouse, "ClickHouse"},
}

// New returns a console for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Lab == nil {
		return nil, errors.New("console: no lab")
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 4
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	lim := cfg.Limits
	if lim.MaxRows <= 0 {
		lim.MaxRows = query.DefaultLimits.MaxRows
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = query.DefaultLimits.MaxBytes
	}
	if lim.Timeout <= 0 {
		lim.Timeout = query.DefaultLimits.Timeout
	}
	cfg.Limits = lim
	index, err := webFS.ReadFile("web/index.html")
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, check: sqlread.Check, sem: make(chan struct{}, cfg.MaxConcurrent), mux: http.NewServeMux(), index: index}
	static, _ := fs.Sub(webFS, "web")
	s.mux.HandleFunc("GET /{$}", s.serveIndex)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /api/presets", s.servePresets)
	s.mux.HandleFunc("POST /api/query", s.serveQuery)
	for _, p := range []struct{ path, method string }{{"/api/presets", "GET"}, {"/api/query", "POST"}} {
		s.mux.HandleFunc(p.path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", p.method)
			writeError(w, http.StatusMethodNotAllowed, "method", fmt.Sprintf("%s takes %s, not %s", p.path, p.method, r.Method))
		})
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%s %s is not part of the console API (GET /api/presets, POST /api/query)", r.Method, r.URL.Path))
	})
	return s, nil
}

// ServeHTTP checks the Host, sets the security headers and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusMisdirectedRequest, "host", fmt.Sprintf("the console answers only to an IP address or localhost, not to the host name %q", r.Host))
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if net.ParseIP(host) != nil {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, a := range s.cfg.AllowHosts {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(s.index)
}

type engineJSON struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Available   bool   `json:"available"`
	Unavailable string `json:"unavailable,omitempty"`
}

type presetJSON struct {
	Name        string `json:"name"`
	Engine      string `json:"engine"`
	Title       string `json:"title"`
	Description string `json:"description"`
	SQL         string `json:"sql"`
	Unavailable string `json:"unavailable,omitempty"`
}

type limitsJSON struct {
	MaxRows  int    `json:"max_rows"`
	MaxBytes int    `json:"max_bytes"`
	Timeout  string `json:"timeout"`
}

// Engines lists the console's engines with their availability.
func (s *Server) engines() []engineJSON {
	var out []engineJSON
	for _, e := range engineTitles {
		j := engineJSON{Name: e.name, Title: e.title}
		_, open := s.cfg.Engines[e.name]
		if !open && s.cfg.Unavailable[e.name] == "" && e.name == query.Postgres && !s.cfg.Lab.Stack.Has(e.name) {
			// Most labs have no PostgreSQL: the page does not offer it.
			continue
		}
		if open {
			j.Available = true
		} else if why := s.cfg.Unavailable[e.name]; why != "" {
			j.Unavailable = why
		} else {
			j.Unavailable = fmt.Sprintf("the lab's stack has no %s", e.title)
		}
		out = append(out, j)
	}
	return out
}

func (s *Server) servePresets(w http.ResponseWriter, r *http.Request) {
	presets := []presetJSON{}
	for _, p := range s.cfg.Lab.Presets {
		title := p.Title
		if title == "" {
			title = p.Name
		}
		presets = append(presets, presetJSON{
			Name: p.Name, Engine: p.Engine, Title: title, Description: p.Description,
			SQL: strings.TrimSpace(p.SQL), Unavailable: p.Unavailable,
		})
	}
	title := s.cfg.Lab.Title
	writeJSON(w, http.StatusOK, map[string]any{
		"lab":     map[string]string{"name": s.cfg.Lab.Name, "title": title},
		"engines": s.engines(),
		"presets": presets,
		"limits": limitsJSON{
			MaxRows: s.cfg.Limits.MaxRows, MaxBytes: s.cfg.Limits.MaxBytes, Timeout: s.cfg.Limits.Timeout.String(),
		},
	})
}

type queryRequest struct {
	Engine string `json:"engine"`
	SQL    string `json:"sql"`
}

type queryResponse struct {
	Engine    string         `json:"engine"`
	Columns   []query.Column `json:"columns"`
	Rows      [][]any        `json:"rows"`
	RowCount  int            `json:"row_count"`
	Truncated bool           `json:"truncated"`
	ElapsedMS float64        `json:"elapsed_ms"`
	Elapsed   string         `json:"elapsed"`
}

func (s *Server) serveQuery(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "bad_request", `send the query as JSON with Content-Type: application/json: {"engine": "mysql", "sql": "SELECT …"}`)
		return
	}
	var req queryRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request is larger than %d bytes", maxBody))
			return
		}
		writeError(w, http.StatusBadRequest, "bad_request", `the body must be {"engine": "mysql" or "clickhouse", "sql": "SELECT …"}: `+err.Error())
		return
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "bad_request", "the body must be one JSON object")
		return
	}
	if len(req.SQL) > maxSQL {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the SQL is longer than %d bytes", maxSQL))
		return
	}
	known := false
	for _, e := range engineTitles {
		known = known || e.name == req.Engine
	}
	if !known {
		writeError(w, http.StatusBadRequest, "unknown_engine", fmt.Sprintf("unknown engine %q: the console runs queries on \"mysql\", \"postgres\" or \"clickhouse\"", req.Engine))
		return
	}
	eng, ok := s.cfg.Engines[req.Engine]
	if !ok {
		msg := req.Engine + " is not available"
		for _, e := range s.engines() {
			if e.Name == req.Engine {
				msg = fmt.Sprintf("%s is not available: %s", e.Title, e.Unavailable)
			}
		}
		writeError(w, http.StatusConflict, "unavailable", msg)
		return
	}
	if err := s.check(req.Engine, req.SQL); err != nil {
		s.cfg.Log.Printf("refused %s: %v", req.Engine, err)
		writeError(w, http.StatusForbidden, "refused", "Refused: "+err.Error())
		return
	}

	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-r.Context().Done():
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Limits.Timeout+5*time.Second)
	defer cancel()
	res, err := eng.Query(ctx, req.SQL, s.cfg.Limits)
	if err != nil {
		s.cfg.Log.Printf("%s query failed: %v", req.Engine, err)
		if errors.Is(err, query.ErrTimeout) {
			writeError(w, http.StatusGatewayTimeout, "timeout", err.Error())
			return
		}
		writeError(w, http.StatusUnprocessableEntity, "query", err.Error())
		return
	}
	s.cfg.Log.Printf("%s query: %d rows in %s", req.Engine, len(res.Rows), res.Elapsed)
	writeJSON(w, http.StatusOK, queryResponse{
		Engine: req.Engine, Columns: res.Columns, Rows: res.Rows, RowCount: len(res.Rows),
		Truncated: res.Truncated, ElapsedMS: float64(res.Elapsed.Microseconds()) / 1000, Elapsed: res.Elapsed.Round(time.Microsecond).String(),
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.Encode(v) // HTML-escaped (<, >, &) by default: safe even if sniffed
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, map[string]string{"error": msg, "kind": kind})
}
