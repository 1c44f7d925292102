package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/schemas"
)

// The engine check takes 5–20 s of every run. On a native stack it is
// skipped when it passed before and nothing it checked can have changed:
// the rendered lab (lab.json, and labgen.lock, which hashes every rendered
// file), the experiments checked, the endpoints given, labgen itself
// (which pins the native engines' versions) and the running stack (its
// supervisor: a stack started again may run other engines). run --check
// asks the engines anyway.

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
	h := sha256.New()
	for _, name := range []string{"lab.json", "labgen.lock"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", lay, false
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "labgen %s\nsupervisor %d %s\nendpoints %+v\n", Version, st.PID, st.Started.UTC().Format(time.RFC3339Nano), *ep)
	for _, e := range lab.Experiments {
		fmt.Fprintf(h, "experiment %s\n", e.Name)
	}
	return hex.EncodeToString(h.Sum(nil)), lay, true
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
