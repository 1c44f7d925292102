package render

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/labgen/labgen/internal/atomicfile"
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
	if files[".env"], err = envFile(l, opts.Secrets); err != nil {
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
	files["runbook.md"] = runbook(l)
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

// Modes of a rendered lab, whatever the umask: the containers read the
// directory through a bind mount as their own users (flink, labgen, mysql,
// …), whom a directory of mode 0700 or a file of 0600 would shut out.
const (
	dirMode  os.FileMode = 0o755
	fileMode os.FileMode = 0o644
	execMode os.FileMode = 0o755
)

// Write puts files into dir. Files the previous render wrote (listed in
// its lock) that this render no longer produces are removed; anything
// else there, records/ above all, is left alone. Each file is replaced
// atomically. dir and its directories that hold rendered files get
// dirMode, the files fileMode or execMode, whatever the umask; of the
// directories above dir only those Write creates get dirMode.
func Write(dir string, files Files) error {
	old := previousFiles(dir)
	if err := mkdirs(dir); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, p := range files.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := labDirs(dir, path.Dir(p), done); err != nil {
			return err
		}
		mode := fileMode
		if executable(p) {
			mode = execMode
		}
		if err := writeAtomic(full, files[p], mode); err != nil {
			return err
		}
	}
	for _, p := range old {
		if _, keep := files[p]; keep || strings.HasPrefix(p, "records/") || strings.Contains(p, "..") {
			continue
		}
		_ = os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
	}
	return nil
}

// mkdirs makes dir and the directories above it that are missing, each
// with dirMode (os.MkdirAll's mode is cut by the umask), and gives dir
// itself dirMode.
func mkdirs(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return chmodDir(dir, fi)
	}
	if parent := filepath.Dir(dir); parent != dir {
		if _, err := os.Stat(parent); os.IsNotExist(err) {
			if err := mkdirs(parent); err != nil {
				return err
			}
		}
	}
	if err := os.Mkdir(dir, dirMode); err != nil && !os.IsExist(err) {
		return err
	}
	return chmodDir(dir, nil)
}

// chmodDir gives dir dirMode unless fi, its state, says it has it.
func chmodDir(dir string, fi os.FileInfo) error {
	if fi != nil && fi.Mode().Perm() == dirMode {
		return nil
	}
	return os.Chmod(dir, dirMode)
}

// labDirs makes rel (a slash-separated directory of the rendered lab,
// "." for root itself) under root, and every directory between them, each
// with dirMode (also those an earlier render made under a stricter
// umask). done remembers the directories already seen.
func labDirs(root, rel string, done map[string]bool) error {
	if rel == "." || done[rel] {
		return nil
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return fmt.Errorf("%s is outside the lab directory", rel)
	}
	if err := labDirs(root, path.Dir(rel), done); err != nil {
		return err
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Stat(full)
	if os.IsNotExist(err) {
		err = os.Mkdir(full, dirMode)
		fi = nil
	}
	if err != nil {
		return err
	}
	if err := chmodDir(full, fi); err != nil {
		return err
	}
	done[rel] = true
	return nil
}

func executable(p string) bool {
	return p == "stream-lab" || strings.HasSuffix(p, ".sh")
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
		return os.Chmod(path, mode)
	}
	return atomicfile.Write(path, data, mode)
}

// previousFiles reads the file list of an earlier render's lock.
func previousFiles(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "labgen.lock"))
	if err != nil {
		return nil
	}
	return lockedFiles(b)
}
