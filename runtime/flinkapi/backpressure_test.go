package flinkapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Answers of Flink 1.20.1's JobManager (the native stack, the seed lab's
// join at 500 orders/s): the sink vertex measured, and a vertex of a job
// that had just started, before the JobManager fetched its metrics.
const (
	backpressureOK         = `{"status":"ok","backpressureLevel":"ok","end-timestamp":1796187964515,"subtasks":[{"subtask":0,"backpressureLevel":"ok","ratio":0.0,"idleRatio":0.155,"busyRatio":0.845,"backpressure-level":"ok"}],"backpressure-level":"ok"}`
	backpressureDeprecated = `{"status":"deprecated"}`
)

func TestVertexBackpressure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jobs/j1/vertices/v1/backpressure":
			w.Write([]byte(backpressureOK))
		case "/jobs/j1/vertices/v2/backpressure":
			w.Write([]byte(backpressureDeprecated))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "")
	b, err := c.VertexBackpressure(ctx(t), "j1", "v1")
	if err != nil || b == nil || b.Level != "ok" || b.Ratio != 0 || b.Busy != 0.845 || b.Idle != 0.155 {
		t.Errorf("measured vertex: %+v, %v", b, err)
	}
	if b, err := c.VertexBackpressure(ctx(t), "j1", "v2"); err != nil || b != nil {
		t.Errorf("before the first metrics: %+v, %v", b, err)
	}
	if _, err := c.VertexBackpressure(ctx(t), "j1", "v3"); err == nil {
		t.Error("an unknown vertex gave no error")
	}
}
