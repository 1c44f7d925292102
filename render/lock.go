package render

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// lockFile records what the directory is: the labgen that rendered it, the
// images the stack pulls and builds, the connector jars of the Flink image
// with their checksums, and the sha256 of every other file. Only [files]
// is read back (by Write); the other sections are for people and tools.
func lockFile(l *schemas.Lab, opts Options, files Files) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString(generated(l, "#"))
	b.WriteString("# What this directory is. Columns are separated by two spaces.\n")

	w("\n[labgen]\nversion  %s\ngo  %s\n", opts.LabgenVersion, goVersion())

	b.WriteString("\n[images]\n# role  image (pulled, or the base of an image built here)\n")
	for _, im := range stackImages(l) {
		w("%s  %s\n", im.Role, im.Ref)
	}
	if l.Stack.Flink != nil {
		w("flink-image  %s  (built from flink/)\n", builtImageTag(projectName(l), "flink", files, "flink/"))
	}
	if needsLabgenImage(l) {
		w("labgen-image  %s  (built from labgen/)\n", builtImageTag(projectName(l), "labgen", files, "labgen/"))
	}

	if jars, err := connectorJars(l); err == nil && len(jars) > 0 {
		b.WriteString("\n[connectors]\n# path in /opt/flink  Maven coordinates  sha256  URL\n")
		for _, j := range jars {
			w("%s  %s  sha256:%s  %s\n", j.Path(), j.Coordinates(), j.SHA256, j.URL())
		}
	}

	if tree, n := sourceTreeHash(files); n > 0 {
		w("\n[source]\n# labgen's own source for the labgen image: one hash over the sorted \"sha256  path\" lines of its %d files\n", n)
		w("%s  sha256-tree:%s\n", strings.TrimSuffix(labgenSrcDir, "/"), tree)
	}

	b.WriteString("\n[files]\n")
	for _, p := range files.Paths() {
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(files[p]), p)
	}
	return []byte(b.String())
}

// lockedFiles lists the files a lock names.
func lockedFiles(lock []byte) []string {
	var out []string
	eachLockLine(lock, func(_, file string) {
		if file != "" {
			out = append(out, file)
		}
	})
	return out
}

// LockLines is a lock without the [files] lines whose path keep refuses:
// what a reader that depends on some of the rendered files only (the
// engine check's memo) hashes.
func LockLines(lock []byte, keep func(path string) bool) string {
	var b strings.Builder
	eachLockLine(lock, func(line, file string) {
		if file == "" || keep(file) {
			b.WriteString(line + "\n")
		}
	})
	return b.String()
}

// eachLockLine calls fn with every line of a lock and, for an entry of
// [files] ("<sha256>  <path>"), its path.
func eachLockLine(lock []byte, fn func(line, file string)) {
	section := ""
	for _, line := range strings.Split(string(lock), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section = t
		}
		file := ""
		if section == "[files]" && t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "[") {
			if _, p, ok := strings.Cut(t, "  "); ok {
				file = p
			}
		}
		fn(line, file)
	}
}
