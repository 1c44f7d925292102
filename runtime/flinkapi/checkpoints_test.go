package flinkapi

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointStateSize: the seed lab's join on the native stack (Flink
// 1.20.1, 5 orders/s, testdata/flink-1.20.1/join/) reports its latest
// completed checkpoint's whole state, which a flink step shows as
// checkpoints.state_size.
func TestCheckpointStateSize(t *testing.T) {
	const id = "b1da2e2df81a10906a56a7aa6c9650cc"
	answer := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "flink-1.20.1", "join", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jobs/" + id:
			w.Write(answer("job.json"))
		case "/jobs/" + id + "/checkpoints":
			w.Write(answer("checkpoints.json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	st, err := New(srv.URL, "").JobStatus(ctx(t), id, []string{ShowState, ShowCheckpoints}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Checkpoints; c.LatestID != 28 || c.LatestStateSize != 1000411 || c.Completed != 28 || c.Failed != 4 {
		t.Errorf("checkpoints: %+v", c)
	}
}
