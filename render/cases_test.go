package render

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/labgen/labgen/internal/golden"
	"github.com/labgen/labgen/schemas"
)

// casesDir holds the per-feature golden cases: each folder is a small lab
// (its .hcl files) beside the rendered files it checks (want/), as sqlc's
// end-to-end tests keep a query beside its generated code. files.txt names
// which rendered files the case checks. See testdata/cases/README.md.
const casesDir = "testdata/cases"

// featureCase is one folder of casesDir.
type featureCase struct {
	name, dir string
	// patterns are files.txt's path.Match patterns.
	patterns []string
}

func featureCases(t testing.TB) []featureCase {
	t.Helper()
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []featureCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := featureCase{name: e.Name(), dir: filepath.Join(casesDir, e.Name())}
		f, err := os.Open(filepath.Join(c.dir, "files.txt"))
		if err != nil {
			t.Fatalf("case %s: %v (each case lists the files it checks in files.txt)", c.name, err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
				if _, err := path.Match(line, ""); err != nil {
					t.Fatalf("case %s: files.txt: bad pattern %q: %v", c.name, line, err)
				}
				c.patterns = append(c.patterns, line)
			}
		}
		f.Close()
		if len(c.patterns) == 0 {
			t.Fatalf("case %s: files.txt names no files", c.name)
		}
		out = append(out, c)
	}
	return out
}

// load reads the case's lab, which must have no diagnostic at all and be
// in labgen fmt's canonical style.
func (c featureCase) load(t testing.TB) *schemas.Lab {
	t.Helper()
	names, err := schemas.LabFiles(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hclwrite.Format(src), src) {
			t.Errorf("%s is not in canonical style (labgen fmt %s)", n, c.dir)
		}
	}
	lab, diags := schemas.NewParser().Load(c.dir, schemas.Options{})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %s", diags.Error())
	}
	return lab
}

// TestFeatureCases renders every case, loads its compose file as
// TestEveryLabRenders does, and compares the files its files.txt names
// with want/. `go test ./render -update` rewrites want/ (only the
// named files); review the diff.
func TestFeatureCases(t *testing.T) {
	cases := featureCases(t)
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", casesDir)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, err := Render(c.load(t), Options{LabgenVersion: "test", NoSource: true})
			if err != nil {
				t.Fatal(err)
			}
			// Every case's stack is a valid compose project, too.
			loadCompose(t, files)
			got := Files{}
			for _, pat := range c.patterns {
				n := 0
				for _, p := range files.Paths() {
					if ok, _ := path.Match(pat, p); ok {
						got[p] = files[p]
						n++
					}
				}
				// A pattern that names nothing would check nothing.
				if n == 0 {
					t.Errorf("files.txt: %q matches no rendered file", pat)
				}
			}
			wantDir := filepath.Join(c.dir, "want")
			if *update {
				if err := os.RemoveAll(wantDir); err != nil {
					t.Fatal(err)
				}
				for _, p := range got.Paths() {
					full := filepath.Join(wantDir, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(full, got[p], 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := map[string][]byte{}
			err = filepath.WalkDir(wantDir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				rel, _ := filepath.Rel(wantDir, p)
				want[filepath.ToSlash(rel)] = b
				return err
			})
			if err != nil {
				t.Fatalf("%v (run go test ./render -update to create want/)", err)
			}
			for _, p := range got.Paths() {
				w, ok := want[p]
				switch {
				case !ok:
					t.Errorf("%s: rendered and named by files.txt, not in want/ (go test ./render -update)", p)
				case !bytes.Equal(got[p], w):
					t.Errorf("%s differs from want/%s:\n%s", p, p, golden.FirstDiff(string(w), string(got[p])))
				}
				delete(want, p)
			}
			for p := range want {
				t.Errorf("want/%s: no longer rendered (or no longer named by files.txt)", p)
			}
		})
	}
}

// Compose's health checks are the registry's: each service that keeps
// running has its description's, a one-shot service none, in the seed
// lab and every case.
func TestHealthChecksFromRegistry(t *testing.T) {
	labs := map[string]*schemas.Lab{"seed": loadSeed(t, nil)}
	for _, c := range featureCases(t) {
		labs[c.name] = c.load(t)
	}
	for name, l := range labs {
		st := buildStack(l, imagePrefix(l), Files{})
		for _, svc := range st.services() {
			hc := st.project.Services[svc].HealthCheck
			if st.oneShot[svc] {
				if hc != nil {
					t.Errorf("%s: one-shot %s has a health check", name, svc)
				}
				continue
			}
			d := schemas.Service(svc)
			if hc == nil || d == nil || d.Health == nil {
				t.Errorf("%s: %s has no health check", name, svc)
				continue
			}
			if got, want := hc.Test[1], d.Health.Test(l); got != want {
				t.Errorf("%s: %s's health check is %q, its description's %q", name, svc, got, want)
			}
		}
	}
}
