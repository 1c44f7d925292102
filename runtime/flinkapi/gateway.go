package flinkapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Session is an open SQL gateway session. Statements of one session share
// its configuration (SET) and catalog objects (CREATE TABLE …).
type Session struct {
	c      *Client
	Handle string
}

// OpenSession opens a gateway session with the given configuration
// properties (they act like SET statements run first).
func (c *Client) OpenSession(ctx context.Context, name string, props map[string]string) (*Session, error) {
	body := map[string]any{}
	if name != "" {
		body["sessionName"] = name
	}
	if len(props) > 0 {
		body["properties"] = props
	}
	var out struct {
		Handle string `json:"sessionHandle"`
	}
	if err := c.do(ctx, "POST", c.Gateway, "/v1/sessions", body, &out); err != nil {
		return nil, err
	}
	if out.Handle == "" {
		return nil, fmt.Errorf("the SQL gateway opened a session without a handle")
	}
	return &Session{c: c, Handle: out.Handle}, nil
}

// Close closes the session; statements still running in it are cancelled
// by the gateway, jobs already submitted keep running.
func (s *Session) Close(ctx context.Context) error {
	return s.c.do(ctx, "DELETE", s.c.Gateway, "/v1/sessions/"+pathEscape(s.Handle), nil, nil)
}

// Submit sends one statement and returns its operation handle without
// waiting for it.
func (s *Session) Submit(ctx context.Context, statement string) (string, error) {
	var out struct {
		Handle string `json:"operationHandle"`
	}
	err := s.c.do(ctx, "POST", s.c.Gateway, "/v1/sessions/"+pathEscape(s.Handle)+"/statements",
		map[string]any{"statement": statement}, &out)
	if err != nil {
		return "", err
	}
	return out.Handle, nil
}

func (s *Session) opPath(op string) string {
	return "/sessions/" + pathEscape(s.Handle) + "/operations/" + pathEscape(op)
}

// OperationStatus is RUNNING, FINISHED, ERROR, CANCELED, … as the gateway
// reports it.
func (s *Session) OperationStatus(ctx context.Context, op string) (string, error) {
	var out struct {
		Status string `json:"status"`
	}
	if err := s.c.do(ctx, "GET", s.c.Gateway, "/v1"+s.opPath(op)+"/status", nil, &out); err != nil {
		return "", err
	}
	return out.Status, nil
}

// CancelOperation cancels a running statement.
func (s *Session) CancelOperation(ctx context.Context, op string) error {
	return s.c.do(ctx, "POST", s.c.Gateway, "/v1"+s.opPath(op)+"/cancel", nil, nil)
}

// CloseOperation releases a statement's resources on the gateway.
func (s *Session) CloseOperation(ctx context.Context, op string) error {
	return s.c.do(ctx, "DELETE", s.c.Gateway, "/v1"+s.opPath(op)+"/close", nil, nil)
}

// Column is a column of a statement's result.
type Column struct {
	Name string
	// Type is Flink's logical type name, e.g. BIGINT, VARCHAR.
	Type     string
	Nullable bool
}

// Page is one fetch of a statement's result.
type Page struct {
	// ResultType is NOT_READY, PAYLOAD or EOS.
	ResultType    string
	IsQueryResult bool
	JobID         string
	// ResultKind is SUCCESS or SUCCESS_WITH_CONTENT.
	ResultKind string
	Columns    []Column
	// Rows holds the fields of each row (JSON values: json.Number,
	// string, bool, nil, or nested maps and slices); Kinds the change kind
	// of each row (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE).
	Rows  [][]any
	Kinds []string
	// Next is the path of the next page, empty after EOS.
	Next string
}

type pageJSON struct {
	ResultType    string `json:"resultType"`
	IsQueryResult bool   `json:"isQueryResult"`
	JobID         string `json:"jobID"`
	ResultKind    string `json:"resultKind"`
	Results       struct {
		Columns []struct {
			Name        string `json:"name"`
			LogicalType struct {
				Type     string `json:"type"`
				Nullable bool   `json:"nullable"`
			} `json:"logicalType"`
		} `json:"columns"`
		Data []struct {
			Kind   string `json:"kind"`
			Fields []any  `json:"fields"`
		} `json:"data"`
	} `json:"results"`
	NextResultURI string `json:"nextResultUri"`
}

// Fetch gets one page of a statement's result: token 0 first, then the
// token of each page's Next. Rows come as JSON (API v2, rowFormat=JSON).
// A statement that failed answers with its error.
func (s *Session) Fetch(ctx context.Context, op string, token int) (*Page, error) {
	return s.fetchPath(ctx, fmt.Sprintf("/v2%s/result/%d?rowFormat=JSON", s.opPath(op), token))
}

func (s *Session) fetchPath(ctx context.Context, path string) (*Page, error) {
	var pj pageJSON
	if err := s.c.do(ctx, "GET", s.c.Gateway, path, nil, &pj); err != nil {
		return nil, err
	}
	p := &Page{ResultType: pj.ResultType, IsQueryResult: pj.IsQueryResult, JobID: pj.JobID,
		ResultKind: pj.ResultKind, Next: pj.NextResultURI}
	for _, c := range pj.Results.Columns {
		p.Columns = append(p.Columns, Column{Name: c.Name, Type: c.LogicalType.Type, Nullable: c.LogicalType.Nullable})
	}
	for _, d := range pj.Results.Data {
		p.Rows = append(p.Rows, d.Fields)
		p.Kinds = append(p.Kinds, d.Kind)
	}
	return p, nil
}

// Result is the whole (bounded) result of one statement.
type Result struct {
	Statement string
	// JobID is set for statements that submitted a job (INSERT, a query).
	JobID      string
	ResultKind string
	Columns    []Column
	Rows       [][]any
	Kinds      []string
	// Truncated is set when more rows than the limit came; the statement
	// was then cancelled.
	Truncated bool
	Elapsed   time.Duration
}

// PollInterval is the longest Execute waits before asking again for a
// result that is not ready. It asks first after firstPoll and doubles the
// wait up to PollInterval: most statements (DDL, EXPLAIN, a job's
// submission) are ready within tens of milliseconds, and a fixed 200 ms
// wait was most of an engine check's time.
var PollInterval = 200 * time.Millisecond

const firstPoll = 5 * time.Millisecond

// Execute runs one statement and waits for its whole result, keeping at
// most maxRows rows (0: no limit). An INSERT into a streaming sink returns
// as soon as its job is submitted (with the job ID); with
// table.dml-sync=true it returns when the job has finished. A statement
// that fails returns Flink's exception chain as the error. ctx bounds the
// wait; when it ends the statement is cancelled.
func (s *Session) Execute(ctx context.Context, statement string, maxRows int) (*Result, error) {
	start := time.Now()
	op, err := s.Submit(ctx, statement)
	if err != nil {
		return nil, err
	}
	res := &Result{Statement: statement}
	defer func() {
		// Release the operation; a bounded query is cancelled by closing.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.CloseOperation(cctx, op)
	}()
	path := fmt.Sprintf("/v2%s/result/0?rowFormat=JSON", s.opPath(op))
	wait := min(firstPoll, PollInterval)
	for {
		p, err := s.fetchPath(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		if p.JobID != "" {
			res.JobID = p.JobID
		}
		if p.ResultKind != "" {
			res.ResultKind = p.ResultKind
		}
		if len(p.Columns) > 0 {
			res.Columns = p.Columns
		}
		for i, row := range p.Rows {
			if maxRows > 0 && len(res.Rows) >= maxRows {
				res.Truncated = true
				break
			}
			res.Rows = append(res.Rows, row)
			res.Kinds = append(res.Kinds, p.Kinds[i])
		}
		if res.Truncated || p.ResultType == "EOS" || p.Next == "" {
			break
		}
		if p.ResultType == "NOT_READY" || len(p.Rows) == 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			wait = min(2*wait, PollInterval)
		}
		path = p.Next
		if !strings.Contains(path, "rowFormat=") && strings.HasPrefix(path, "/v2/") {
			path += "?rowFormat=JSON"
		}
	}
	// A job-submitting statement answers with its job ID as the only
	// row; the gateway also reports it as jobID.
	if res.JobID == "" && len(res.Columns) == 1 && res.Columns[0].Name == "job id" && len(res.Rows) == 1 {
		if id, ok := res.Rows[0][0].(string); ok {
			res.JobID = id
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// ScriptRun is what RunScript did.
type ScriptRun struct {
	// Results has one entry per statement that ran, in order.
	Results []*Result
	// JobID is the job the script submitted (the last one if several).
	JobID string
}

// RunScript runs statements in order in a new session named "labgen
// NAME" and closes the session. The session's pipeline.name is name, so
// the job a script submits carries the name unless the script sets
// pipeline.name itself. It stops at the first statement that fails and
// returns what ran so far with the error. maxRows bounds each statement's
// kept rows.
func (c *Client) RunScript(ctx context.Context, name string, statements []string, maxRows int) (*ScriptRun, error) {
	props := map[string]string{}
	if PipelineName(statements) == "" && name != "" {
		props["pipeline.name"] = name
	}
	s, err := c.OpenSession(ctx, "labgen "+name, props)
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.Close(cctx)
	}()
	run := &ScriptRun{}
	for i, st := range statements {
		r, err := s.Execute(ctx, st, maxRows)
		if err != nil {
			return run, &StatementError{Index: i, Statement: st, Err: err}
		}
		run.Results = append(run.Results, r)
		if r.JobID != "" {
			run.JobID = r.JobID
		}
	}
	return run, nil
}

// StatementError is a statement of a script that failed.
type StatementError struct {
	Index     int
	Statement string
	Err       error
}

// Error leads with the root cause of Flink's exception chain, in full: the
// gateway wraps every failure in SqlGatewayException and "Failed to
// execute the operation", which say nothing of what went wrong.
func (e *StatementError) Error() string {
	msg := e.Err.Error()
	var fe *Error
	if errors.As(e.Err, &fe) {
		msg = Failure(fe.Message)
	}
	return fmt.Sprintf("statement %d failed: %s", e.Index+1, msg)
}

// RootCause is the innermost cause of the statement's failure.
func (e *StatementError) RootCause() string {
	var fe *Error
	if errors.As(e.Err, &fe) {
		return fe.RootCause()
	}
	return e.Err.Error()
}

func (e *StatementError) Unwrap() error { return e.Err }
