package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// Files is a rendered lab: slash-separated relative paths to contents.
type Files map[string][]byte

// Paths lists the files in sorted order.
func (f Files) Paths() []string {
	out := make([]string, 0, len(f))
	for p := range f {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Options tune a render.
type Options struct {
	// LabgenVersion is written into the lock and the labgen image.
	LabgenVersion string
	// NoSource leaves labgen's own source out of the directory (the
	// labgen image then cannot be built from it); tests use it to keep
	// goldens independent of labgen's code.
	NoSource bool
	// Secrets replace the default passwords of .env: keys of .env whose
	// names end in _PASSWORD, values of letters, digits and -_.~ (else
	// Render fails with a *SecretsError). Everything that needs a
	// password reads it from .env, so nothing else changes but the lock.
	Secrets map[string]string
	// Dir is the absolute path of the directory the files go to (OutDir
	// gives it), or "" when they go to no directory of the user's (tests,
	// temporary renders): it names the compose project (ProjectName), so
	// the same lab, variables and Dir give the same bytes.
	Dir string
	// Targets render more faces of the lab (render/kube's Kubernetes
	// base) from the lab and the files rendered so far; what they return
	// joins the directory before the lock hashes it.
	Targets []Target
}

// Target renders another face of the lab into files of its own.
type Target func(l *schemas.Lab, files Files) (Files, error)

// Paths and names shared by the rendered files.
const (
	// Where the lake warehouses live in the Flink and Fluss containers
	// (one shared volume).
	WarehouseDir    = "/warehouse"
	PaimonWarehouse = "/warehouse/paimon"
	// KafkaInternal is the listener containers use.
	KafkaInternal = schemas.KafkaInternal
	// FlussBootstrap is the Fluss coordinator's address for Flink.
	FlussBootstrap = "coordinator-server:9123"
	// LabMount is where services that need the lab directory see it.
	LabMount = "/lab"
)

// Render produces every file of the lab directory. It never touches disk.
func Render(l *schemas.Lab, opts Options) (Files, error) {
	if opts.LabgenVersion == "" {
		opts.LabgenVersion = "dev"
	}
	files := Files{}
	// lab.json carries the images, so that the runtime copies them (a
	// copy of the lab: Render does not change its input).
	withImages, stack := *l, *l.Stack
	stack.Images = stackImages(l)
	withImages.Stack = &stack
	labJSON, err := schemas.MarshalLab(&withImages)
	if err != nil {
		return nil, fmt.Errorf("encoding lab.json: %w", err)
	}
	files["lab.json"] = labJSON
	if files[".env"], err = envFile(l, ProjectName(l, opts.Dir), opts.Secrets); err != nil {
		return nil, err
	}

	// The files that depend on where services find each other are the
	// compose face's here; the native stack renders its own face the same way.
	face, err := FaceFiles(l, ComposeFace)
	if err != nil {
		return nil, err
	}
	for p, b := range face {
		files[p] = b
	}
	for _, d := range sources(l) {
		if files["sql/"+d.component+"/init-users.sh"], err = d.initScript(l); err != nil {
			return nil, err
		}
	}
	if l.Stack.ClickHouse != nil {
		files["clickhouse/users.xml"] = clickhouseUsers(l)
	}
	for _, p := range l.Presets {
		files["sql/presets/"+p.Engine+"/"+p.Name+".sql"] = []byte(strings.TrimSuffix(strings.TrimSpace(p.SQL), ";") + ";\n")
	}
	if err := renderStack(l, opts, files); err != nil {
		return nil, err
	}
	files["runbook.md"] = runbook(l, opts.Dir)
	for _, t := range opts.Targets {
		more, err := t(l, files)
		if err != nil {
			return nil, err
		}
		for p, b := range more {
			if _, dup := files[p]; dup {
				return nil, fmt.Errorf("render: two faces write %s", p)
			}
			files[p] = b
		}
	}
	// The lock comes last: it hashes everything else.
	files["labgen.lock"] = lockFile(l, opts, files)
	return files, nil
}

// Generated is the marker every rendered text file carries near its top,
// so that people know not to edit it.
func generated(l *schemas.Lab, comment string) string {
	return fmt.Sprintf("%s Rendered by labgen from the lab %q. Do not edit: change the lab and render again.\n", comment, l.Name)
}
