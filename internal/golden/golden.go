// Package golden compares rendered files with a txtar golden file, for the
// tests of render and render/kube: `go test ./PKG -update` rewrites the
// golden, whose diff is then reviewed like code.
package golden

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Txtar compares files with the txtar archive at path (comment is its
// header), or, with update, writes them there.
func Txtar(t testing.TB, path, comment string, files map[string][]byte, update bool) {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ar := &txtar.Archive{Comment: []byte(comment)}
	for _, p := range paths {
		ar.Files = append(ar.Files, txtar.File{Name: p, Data: files[p]})
	}
	got := txtar.Format(ar)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	wantFiles := map[string][]byte{}
	for _, f := range txtar.Parse(want).Files {
		wantFiles[f.Name] = f.Data
	}
	for _, p := range paths {
		w, ok := wantFiles[p]
		switch {
		case !ok:
			t.Errorf("%s: rendered, but not in %s", p, path)
		case !bytes.Equal(files[p], w):
			t.Errorf("%s differs from %s (go test -update, then review the diff):\n%s", p, path, FirstDiff(string(w), string(files[p])))
		}
		delete(wantFiles, p)
	}
	for p := range wantFiles {
		t.Errorf("%s: in %s, no longer rendered", p, path)
	}
}

// FirstDiff shows the first differing line.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(only trailing bytes differ)"
}
