// Package atomicfile writes a file so that a reader sees either its old
// contents or its new ones, never a part: a temporary file in the same
// directory, synced, then renamed over the old one. A crash leaves at most
// a stray temporary file (named .NAME.*), never a torn file.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path's contents with data, with the given mode.
func Write(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename this is a no-op
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	// Synced before the rename: else a crash may leave the new name with
	// empty contents on some file systems.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
