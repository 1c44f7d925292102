package labdir

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// NativeDir is where a native stack (labgen up --native) keeps its state
// and the files of the native face, inside the rendered lab directory.
const NativeDir = ".native"

// JobsFile is where the runner remembers, per streaming job it submitted,
// the job's ID and a digest of the script it sent (runner's jobMemo).
const JobsFile = ".labgen-jobs.json"

// FaceDir is where the native face's rendered files live, at the same
// relative paths as the compose face's in the lab directory.
const FaceDir = NativeDir + "/face"

// Native tells whether a native stack runs for this lab directory: its
// supervisor's status file is there and does not say it went down.
func (l *Lab) Native() bool { return NativeRuns(l.Dir) }

// NativeRuns is Native for the rendered lab directory dir, unloaded.
func NativeRuns(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, NativeDir, "status.json"))
	if err != nil {
		return false
	}
	var st struct {
		Down bool `json:"down"`
	}
	if json.Unmarshal(b, &st) != nil {
		return false
	}
	if st.Down {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, NativeDir, "control.json"))
	return err == nil
}

// FacePath is the path of a rendered file whose contents depend on where
// the services run (sql/flink/<job>.sql, sql/clickhouse/schema.sql): the
// native face's copy while a native stack runs, else the lab directory's.
func (l *Lab) FacePath(rel string) string {
	if l.Native() {
		p := filepath.Join(l.Dir, FaceDir, filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(l.Dir, filepath.FromSlash(rel))
}

// WarehouseDir is where a native stack keeps the lake warehouses
// (paimon/, iceberg/, fluss/), relative to the lab directory.
const WarehouseDir = NativeDir + "/warehouse"

// NativeWarehouse is the native stack's warehouse directory.
func (l *Lab) NativeWarehouse() string { return filepath.Join(l.Dir, filepath.FromSlash(WarehouseDir)) }
