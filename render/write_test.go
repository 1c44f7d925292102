package render

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a file of the test, making its directory.
func writeFile(t *testing.T, p, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir with its contents and mode, and
// every directory with its mode, to compare a directory before and after.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		}
	}
}

// TestWriteRefuses: Write writes into a directory no labgen render owns
// only with Force, never over a file of the user's (Force keeps it as
// NAME.orig), never into the root, and never through a symbolic link;
// refused, it leaves the directory as it was, its mode included.
func TestWriteRefuses(t *testing.T) {
	files := renderSeed(t, nil)
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // the refusal
		moved []string
	}{
		{
			name: "a home of mode 0700 with the user's .env",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, ".env"), "MY_TOKEN=x\n", 0o600)
				writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n", 0o644)
			},
			want:  "holds .env and notes.txt, which no labgen render wrote (it has no labgen.lock)",
			moved: []string{".env → .env.orig"},
		},
		{
			name: "a lock that is not labgen's",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "labgen.lock"), "[files]\n"+sha("mine\n")+"  notes.txt\n", 0o644)
				writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n", 0o644)
			},
			want:  "holds labgen.lock and notes.txt, which no labgen render wrote (its labgen.lock is not one labgen wrote: its first line is not labgen's)",
			moved: []string{"labgen.lock → labgen.lock.orig"},
		},
		{
			name: "a previous render's, with runbook.md a directory of the user's",
			setup: func(t *testing.T, dir string) {
				if err := Write(dir, files); err != nil {
					t.Fatal(err)
				}
				os.Remove(filepath.Join(dir, "runbook.md"))
				writeFile(t, filepath.Join(dir, "runbook.md", "mine.md"), "mine\n", 0o644)
			},
			want:  "holds runbook.md, which no labgen render wrote and this render would replace",
			moved: []string{"runbook.md → runbook.md.orig"},
		},
		{
			name: "a previous render's, with sql a symbolic link out of it",
			setup: func(t *testing.T, dir string) {
				if err := Write(dir, files); err != nil {
					t.Fatal(err)
				}
				elsewhere := filepath.Join(filepath.Dir(dir), "elsewhere")
				writeFile(t, filepath.Join(elsewhere, "flink", "order_wide.sql"), "mine\n", 0o644)
				os.RemoveAll(filepath.Join(dir, "sql"))
				if err := os.Symlink(elsewhere, filepath.Join(dir, "sql")); err != nil {
					t.Fatal(err)
				}
			},
			want:  "holds sql, which no labgen render wrote and this render would replace",
			moved: []string{"sql → sql.orig"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			before := snapshot(t, parent)
			_, err := WriteWith(dir, files, WriteOptions{})
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want a refusal %q", err, c.want)
			}
			sameSnapshot(t, "refused", before, snapshot(t, parent))

			w, err := WriteWith(dir, files, WriteOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(w.Moved, ", ") != strings.Join(c.moved, ", ") {
				t.Errorf("Force moved %q, want %q", w.Moved, c.moved)
			}
			after := snapshot(t, parent)
			for rel, v := range before {
				// What was in the way is kept whole under its new name;
				// all else of the user's is untouched.
				for _, m := range c.moved {
					from, to, _ := strings.Cut(m, " → ")
					if from = filepath.Join("out", from); rel == from || strings.HasPrefix(rel, from+"/") {
						rel = filepath.Join("out", to) + strings.TrimPrefix(rel, from)
					}
				}
				if _, rendered := files[filepath.ToSlash(strings.TrimPrefix(rel, "out/"))]; rendered || rel == "out" {
					continue
				}
				if after[rel] != v {
					t.Errorf("Force: %s is %q, was %q", rel, after[rel], v)
				}
			}
			if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 || w.Mode != 0o700 {
				t.Errorf("the directory's mode is %v (Written says %v), want the user's 0700", fi.Mode().Perm(), w.Mode)
			}
			for p, b := range files {
				if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != string(b) {
					t.Errorf("Force: %s is not what was rendered (%v)", p, err)
				}
			}
			if fi, _ := os.Stat(filepath.Join(dir, ".env")); fi.Mode().Perm() != 0o600 {
				t.Errorf(".env has mode %v, want 0600", fi.Mode().Perm())
			}
			// Again: the directory is the render's now.
			if _, err := WriteWith(dir, files, WriteOptions{}); err != nil {
				t.Errorf("a render over a forced one: %v", err)
			}
		})
	}

	if _, err := WriteWith("/", files, WriteOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "/ is the root of the file system") {
		t.Errorf("Write into /: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	writeFile(t, file, "x", 0o644)
	if _, err := WriteWith(file, files, WriteOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Write into a file: %v", err)
	}
	// A file of the user's in the way, and its NAME.orig too.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".env"), "A=1\n", 0o600)
	writeFile(t, filepath.Join(dir, ".env.orig"), "A=0\n", 0o600)
	before := snapshot(t, dir)
	if _, err := WriteWith(dir, files, WriteOptions{Force: true}); err == nil || !strings.Contains(err.Error(), ".env.orig: move one of them away") {
		t.Errorf("Force with NAME.orig there: %v", err)
	}
	sameSnapshot(t, "NAME.orig there", before, snapshot(t, dir))
}

// TestWriteFailsWhole: a render that fails before its files move into
// place leaves the previous one as it was, and a directory it made is
// gone again.
func TestWriteFailsWhole(t *testing.T) {
	files := renderSeed(t, nil)
	bad := Files{}
	for p, b := range files {
		bad[p] = append([]byte("new "), b...)
	}
	// Sorted after the others: every other file is written before it fails.
	bad["zz/"+strings.Repeat("x", 300)] = []byte("a name too long for the file system")

	dir := t.TempDir()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "records", "r1", "record.json"), "{}\n", 0o644)
	before := snapshot(t, dir)
	if err := Write(dir, bad); err == nil {
		t.Fatal("no error")
	}
	sameSnapshot(t, "a failed render", before, snapshot(t, dir))

	missing := filepath.Join(t.TempDir(), "a", "b")
	if err := Write(missing, bad); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Lstat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed render left the directories it made: %v", err)
	}
}

// TestWriteDeletesOnlyItsOwn: the files of the old lock that a render no
// longer writes are deleted only if they are clean paths inside the
// directory, not under records/ or .native/, reached through no
// symbolic link, and still what labgen wrote; each other one is left and
// named. A lock labgen did not write as it is deletes nothing.
func TestWriteDeletesOnlyItsOwn(t *testing.T) {
	files := renderSeed(t, nil)
	const rec = "records/20260101-000000-abc/record.json"
	stale := []struct {
		path, sum string
		why       string // "" if deleted
	}{
		{"sql/flink/gone.sql", sha("old job\n"), ""},
		{rec, sha("{}\n"), "under records/"},
		{"./" + rec, sha("{}\n"), "not a clean path inside the directory"},
		{"sql/../" + rec, sha("{}\n"), "not a clean path inside the directory"},
		{".native/data/x", sha("x\n"), "under .native/"},
		{"../x", sha("outside\n"), "not a clean path inside the directory"},
		{"/etc/x", sha("outside\n"), "not a clean path inside the directory"},
		{"link/x", sha("outside\n"), "through the symbolic link link"},
		{"notes.txt", sha("something else\n"), "changed since labgen wrote it"},
		{"never-there.txt", sha("x\n"), ""},
	}
	setup := func(t *testing.T) (parent, dir string) {
		parent = t.TempDir()
		dir = filepath.Join(parent, "out")
		if err := Write(dir, files); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "sql", "flink", "gone.sql"), "old job\n", 0o644)
		writeFile(t, filepath.Join(dir, filepath.FromSlash(rec)), "{}\n", 0o644)
		writeFile(t, filepath.Join(dir, ".native", "data", "x"), "x\n", 0o644)
		writeFile(t, filepath.Join(parent, "x"), "outside\n", 0o644)
		writeFile(t, filepath.Join(parent, "elsewhere", "x"), "outside\n", 0o644)
		if err := os.Symlink(filepath.Join(parent, "elsewhere"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n", 0o644)
		return parent, dir
	}
	// lockWith is the lock of files with extra [files] lines.
	lockWith := func(extra string) []byte {
		lock := string(files["labgen.lock"])
		return []byte(strings.TrimSuffix(lock, "\n") + "\n" + extra)
	}

	t.Run("listed", func(t *testing.T) {
		parent, dir := setup(t)
		var extra strings.Builder
		for _, s := range stale {
			extra.WriteString(s.sum + "  " + s.path + "\n")
		}
		writeFile(t, filepath.Join(dir, "labgen.lock"), string(lockWith(extra.String())), 0o644)
		w, err := WriteWith(dir, files, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kept := strings.Join(w.Kept, "\n") + "\n"
		for _, s := range stale {
			listed := strings.Contains(kept, s.path+" ("+s.why+")\n")
			if s.why == "" && listed || s.why != "" && !listed {
				t.Errorf("%s: kept %v, want %q; Kept:\n%s", s.path, listed, s.why, kept)
			}
		}
		for _, p := range []string{filepath.Join(dir, filepath.FromSlash(rec)), filepath.Join(dir, ".native", "data", "x"),
			filepath.Join(parent, "x"), filepath.Join(parent, "elsewhere", "x"), filepath.Join(dir, "notes.txt")} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s was deleted", p)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "sql", "flink", "gone.sql")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("sql/flink/gone.sql, which labgen wrote and no longer renders, is still there: %v", err)
		}
	})

	for _, c := range []struct{ name, lock string }{
		{"a second [files]", string(lockWith("")) + "[files]\n" + sha("mine\n") + "  notes.txt\n"},
		{"[files] before [images]", strings.Replace(string(files["labgen.lock"]), "[images]", "[files]\n"+sha("mine\n")+"  notes.txt\n[images]", 1)},
		{"a line that is no entry", string(lockWith("notes.txt\n"))},
		{"a path twice", string(lockWith(sha("mine\n") + "  notes.txt\n" + sha("mine\n") + "  notes.txt\n"))},
		{"no marker", "[files]\n" + sha("mine\n") + "  notes.txt\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, dir := setup(t)
			writeFile(t, filepath.Join(dir, "labgen.lock"), c.lock, 0o644)
			var re *RefusedError
			if _, err := WriteWith(dir, files, WriteOptions{}); !errors.As(err, &re) || re.Lock == "" {
				t.Errorf("a render over a lock with %s: %v; want a refusal that says what is off with the lock", c.name, err)
			}
			w, err := WriteWith(dir, files, WriteOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Kept) > 0 {
				t.Errorf("Kept %q: the lock was trusted", w.Kept)
			}
			if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
				t.Errorf("notes.txt was deleted")
			}
			if _, err := os.Stat(filepath.Join(dir, "labgen.lock.orig")); err != nil {
				t.Errorf("the old lock was not kept as labgen.lock.orig: %v", err)
			}
		})
	}
}

// TestProjectNamePerDirectory: two directories of one lab are two compose
// projects; one directory is the same project render after render, and
// OutDir names a directory the same however it is reached.
func TestProjectNamePerDirectory(t *testing.T) {
	l := loadSeed(t, nil)
	a, b := ProjectName(l, "/home/lab/out/a"), ProjectName(l, "/home/lab/out/b")
	if a == b || a != ProjectName(l, "/home/lab/out/a") || !strings.HasPrefix(a, "labgen-orders-") || len(a) != len("labgen-orders-")+8 {
		t.Errorf("projects %q and %q", a, b)
	}
	for _, dir := range []string{"/home/lab/out/a", "/home/lab/out/b"} {
		files, err := Render(l, Options{NoSource: true, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		want := ProjectName(l, dir)
		if !strings.Contains(string(files[".env"]), "\nCOMPOSE_PROJECT_NAME="+want+"\n") || !strings.Contains(string(files["compose.yaml"]), "\nname: "+want+"\n") ||
			!strings.Contains(string(files["runbook.md"]), "`"+want+"`") {
			t.Errorf("%s: .env, compose.yaml and runbook.md do not all name the project %s", dir, want)
		}
	}

	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(parent, "link"), filepath.Join(parent, "link", "new", "..", "..", "real")} {
		if got, err := OutDir(dir); err != nil || got != real {
			t.Errorf("OutDir(%s) = %s, %v; want %s", dir, got, err, real)
		}
	}
	if got, _ := OutDir(filepath.Join(parent, "link", "new", "x")); got != filepath.Join(real, "new", "x") {
		t.Errorf("OutDir of a directory still to make: %s", got)
	}
}
