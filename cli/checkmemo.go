package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/schemas"
)

// The engine check takes 5–20 s of every run. On a native stack it is
// skipped when it passed before and nothing it checked can have changed:
// what the check reads of the rendered lab (lab.json but for its
// producers, variables and prose; the engines' images and connectors and
// the SQL and engine configuration files of labgen.lock), the experiments
// checked, the endpoints given, labgen itself (which pins the native
// engines' versions) and the running stack (its supervisor: a stack
// started again may run other engines). So a variant that changes only
// the producer (a rate, a delay) is not checked again. run --check asks
// the engines anyway.

// withoutCompares drops the compare members of the experiments' steps: a
// compare step's declared distribution is the producer's, copied, and
// the check reads only the step's SQL.
func withoutCompares(raw json.RawMessage) json.RawMessage {
	var exps []map[string]json.RawMessage
	if json.Unmarshal(raw, &exps) != nil {
		return raw
	}
	for _, e := range exps {
		var steps []map[string]json.RawMessage
		if json.Unmarshal(e["steps"], &steps) != nil {
			continue
		}
		for _, st := range steps {
			delete(st, "compare")
		}
		e["steps"], _ = json.Marshal(steps)
	}
	out, _ := json.Marshal(exps)
	return out
}

// uncheckedLab are lab.json's members the check does not read: the
// producer writes data, variables reach the check only through the
// values they set elsewhere, and the prose is prose.
var uncheckedLab = []string{"producers", "variables", "seed", "title", "description"}

// checkedLock is what a check may depend on in labgen.lock: every section
// but [files], and of the files those under these folders (the SQL the
// engines plan and explain, Flink's and ClickHouse's configuration).
var checkedLock = []string{"sql/", "flink/", "clickhouse/"}

// checkMemo is what a passed check leaves in the native stack's state.
type checkMemo struct {
	Key    string    `json:"key"`
	Passed time.Time `json:"passed"`
}

func checkMemoPath(lay native.Layout) string { return filepath.Join(lay.State, "engine-check.json") }

// checkKey is the memo's key for a check of lab's experiments on dir's
// native stack; ok is false where no memo applies (no native stack runs).
func checkKey(dir string, lab *schemas.Lab, ep *endpointFlags) (key string, lay native.Layout, ok bool) {
	lay, err := native.NewLayout(dir)
	if err != nil || !lay.Running() {
		return "", lay, false
	}
	st, err := lay.ReadStatus()
	if err != nil {
		return "", lay, false
	}
	checked, err := checkedRender(dir)
	if err != nil {
		return "", lay, false
	}
	h := sha256.New()
	h.Write(checked)
	fmt.Fprintf(h, "labgen %s\nsupervisor %d %s\nendpoints %+v\n", Version, st.PID, st.Started.UTC().Format(time.RFC3339Nano), *ep)
	for _, e := range lab.Experiments {
		fmt.Fprintf(h, "experiment %s\n", e.Name)
	}
	return hex.EncodeToString(h.Sum(nil)), lay, true
}

// checkedRender is what the check reads of a rendered lab: lab.json but
// for uncheckedLab and the steps' compares, and labgen.lock but for the
// files outside checkedLock.
func checkedRender(dir string) ([]byte, error) {
	labJSON, err := os.ReadFile(filepath.Join(dir, "lab.json"))
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(labJSON, &members); err != nil {
		return nil, err
	}
	for _, k := range uncheckedLab {
		delete(members, k)
	}
	members["experiments"] = withoutCompares(members["experiments"])
	checked, _ := json.Marshal(members) // sorted keys: the same members, the same text
	lock, err := os.ReadFile(filepath.Join(dir, "labgen.lock"))
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "lab.json %d\n%s\nlabgen.lock\n%s", len(checked), checked, render.LockLines(lock, func(path string) bool {
		return slices.ContainsFunc(checkedLock, func(dir string) bool { return strings.HasPrefix(path, dir) })
	})), nil
}

// checkPassed tells when a check with this key last passed.
func checkPassed(lay native.Layout, key string) (time.Time, bool) {
	b, err := os.ReadFile(checkMemoPath(lay))
	if err != nil {
		return time.Time{}, false
	}
	var m checkMemo
	if json.Unmarshal(b, &m) != nil || m.Key != key {
		return time.Time{}, false
	}
	return m.Passed, true
}

// rememberCheck notes a passed check; a memo that cannot be written only
// costs the next run its check.
func rememberCheck(lay native.Layout, key string) {
	b, _ := json.Marshal(checkMemo{Key: key, Passed: time.Now().UTC()})
	_ = os.WriteFile(checkMemoPath(lay), b, 0o644)
}
