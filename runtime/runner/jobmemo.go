package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
	"github.com/labgen/labgen/runtime/labdir"
)

// A streaming job found running is kept, unless labgen submitted it from
// a script that differs from the one it would send now (a render of a
// variant changed its SQL): then it is cancelled and submitted again.
// What was sent is remembered per job in the lab directory, by the job ID
// it got, so that a job some other submission started (another face, an
// earlier labgen, a person) is never mistaken for one of these.

// jobMemo is a job labgen submitted: its ID on the cluster and the digest
// of the statements sent.
type jobMemo struct {
	ID        string    `json:"id"`
	Digest    string    `json:"digest"`
	Submitted time.Time `json:"submitted"`
	// Replaced is the job it replaced because that one's script differed.
	Replaced string `json:"replaced,omitempty"`
}

func jobMemoPath(lab *labdir.Lab) string { return filepath.Join(lab.Dir, labdir.JobsFile) }

// readJobMemos reads what was submitted; none when nothing was (or the
// file cannot be read: then running jobs are kept, as before).
func readJobMemos(lab *labdir.Lab) map[string]jobMemo {
	out := map[string]jobMemo{}
	if b, err := os.ReadFile(jobMemoPath(lab)); err == nil {
		json.Unmarshal(b, &out)
	}
	return out
}

func writeJobMemos(lab *labdir.Lab, m map[string]jobMemo) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(jobMemoPath(lab), append(b, '\n'), 0o644)
}

// scriptDigest is the digest of the statements of a job as sent.
func scriptDigest(sent []string) string {
	h := sha256.Sum256([]byte(strings.Join(sent, ";\n")))
	return hex.EncodeToString(h[:])
}

// scriptChanged tells whether the running job id was submitted by labgen
// from a script other than the one it would send now (digest).
func scriptChanged(memo jobMemo, remembered bool, id, digest string) bool {
	return remembered && memo.ID == id && memo.Digest != digest
}
