package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/labgen/labgen/schemas"
)

// lockFile records what the directory is: the labgen that rendered it, the
// images the stack pulls and builds, the connector jars of the Flink image
// with their checksums, and the sha256 of every other file. Only [files]
// is read back (by Write); the other sections are for people and tools.
// Every value is one line (lockValue): a newline in an image or a version
// must not add lines that Write would read as files it may delete.
func lockFile(l *schemas.Lab, opts Options, files Files) []byte {
	var b strings.Builder
	w := func(format string, args ...any) {
		for i, a := range args {
			if s, ok := a.(string); ok {
				args[i] = lockValue(s)
			}
		}
		fmt.Fprintf(&b, format, args...)
	}
	b.WriteString(generated(l, "#"))
	b.WriteString("# What this directory is. Columns are separated by two spaces.\n")

	w("\n[labgen]\nversion  %s\ngo  %s\n", opts.LabgenVersion, goVersion())

	b.WriteString("\n[images]\n# role  image (pulled, or the base of an image built here)\n")
	for _, im := range stackImages(l) {
		w("%s  %s\n", im.Role, im.Ref)
	}
	if l.Stack.Flink != nil {
		w("flink-image  %s  (built from flink/)\n", builtImageTag(imagePrefix(l), "flink", files, "flink/"))
	}
	if needsLabgenImage(l) {
		w("labgen-image  %s  (built from labgen/)\n", builtImageTag(imagePrefix(l), "labgen", files, "labgen/"))
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
		w("%x  %s\n", sha256.Sum256(files[p]), p)
	}
	return []byte(b.String())
}

// lockValue is s as it goes into a lock: as it is when every character
// prints, else Go-quoted, so that it stays on its line.
func lockValue(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// lockSections are the sections a lock has, in their order; [files] is
// the last.
var lockSections = []string{"[labgen]", "[images]", "[connectors]", "[source]", "[files]"}

// lockEntry is a line of a lock's [files]: a file labgen wrote and the
// sha256 (hex) of what it wrote there.
type lockEntry struct{ path, sum string }

// readLock reads the [files] of a lock, refusing one labgen did not
// write as it is: Write deletes files because the old lock lists them,
// so a lock with anything off (no marker, a section twice or out of
// order, a line of [files] that is not "<sha256>  <path>", a path twice)
// is trusted with nothing. The error says what is off.
func readLock(lock []byte) ([]lockEntry, error) {
	lines := strings.Split(string(lock), "\n")
	if !strings.HasPrefix(lines[0], "# Rendered by labgen from the lab ") {
		return nil, fmt.Errorf("its first line is not labgen's")
	}
	var entries []lockEntry
	seen := map[string]bool{}
	next := 0 // the sections before lockSections[next] are behind
	inFiles := false
	for i, line := range lines {
		n := i + 1
		if strings.HasPrefix(line, "[") {
			k := slices.Index(lockSections[next:], line)
			if k < 0 {
				return nil, fmt.Errorf("line %d: section %s is unknown, repeated or out of order", n, strconv.Quote(line))
			}
			next, inFiles = next+k+1, line == "[files]"
			continue
		}
		if !inFiles || line == "" && i == len(lines)-1 {
			continue
		}
		sum, p, ok := strings.Cut(line, "  ")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size || strings.ToLower(sum) != sum || p == "" {
			return nil, fmt.Errorf("line %d of [files] is not \"<sha256>  <path>\"", n)
		}
		if seen[p] {
			return nil, fmt.Errorf("line %d: %s is listed twice", n, p)
		}
		seen[p] = true
		entries = append(entries, lockEntry{path: p, sum: sum})
	}
	if next != len(lockSections) {
		return nil, fmt.Errorf("it has no [files]")
	}
	return entries, nil
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
