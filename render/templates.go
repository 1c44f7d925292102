package render

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/labgen/labgen/schemas"
)

// The long shell scripts of a rendered lab are templates of their own
// (templates/*.sh.tmpl): shell reads as shell there, and Go computes only
// the facts they need (the data types beside each render function).
//
//go:embed templates/*.tmpl
var templateFiles embed.FS

var scriptTemplates = template.Must(template.New("").Option("missingkey=error").ParseFS(templateFiles, "templates/*.tmpl"))

// scriptData is what every script template knows.
type scriptData struct {
	// Generated is the "do not edit" comment line, without its newline.
	Generated string
	Name      string
	LabMount  string
}

func newScriptData(l *schemas.Lab) scriptData {
	return scriptData{Generated: strings.TrimSuffix(generated(l, "#"), "\n"), Name: l.Name, LabMount: LabMount}
}

// execTemplate renders templates/<name>.tmpl with data.
func execTemplate(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := scriptTemplates.ExecuteTemplate(&b, name+".tmpl", data); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}
