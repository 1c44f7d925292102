package render

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// lockFile records what the directory is: the sha256 of every other file.
func lockFile(l *schemas.Lab, opts Options, files Files) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	b.WriteString("\n[files]\n")
	for _, p := range files.Paths() {
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(files[p]), p)
	}
	return []byte(b.String())
}

// lockedFiles lists the files a lock names.
func lockedFiles(lock []byte) []string {
	var out []string
	section := ""
	for _, line := range strings.Split(string(lock), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		if section != "[files]" || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, p, ok := strings.Cut(line, "  "); ok {
			out = append(out, p)
		}
	}
	return out
}
