package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// Every lab of labs/ loads without diagnostics, renders the same bytes
// twice, and its compose file loads in compose-go without warnings: a new
// lab is held to what the seed lab is.
func TestEveryLabRenders(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "labs"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) {
			lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", d.Name()), schemas.Options{})
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %s", diags.Error())
			}
			a, err := Render(lab, Options{LabgenVersion: "test", NoSource: true})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Render(lab, Options{LabgenVersion: "test", NoSource: true})
			for p := range a {
				if !bytes.Equal(a[p], b[p]) {
					t.Errorf("%s differs between two renders", p)
				}
			}
			loadCompose(t, a)
		})
	}
	if n < 2 {
		t.Errorf("labs/ has %d labs; want the seed lab and at least one other", n)
	}
}
