package render

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	labgen "github.com/labgen/labgen"
	"github.com/labgen/labgen/schemas"
)

// labgenSrcDir is where the rendered directory keeps labgen's source.
const labgenSrcDir = "labgen/src/"

// labgenDockerfile builds labgen from labgen/src with the Go image, into a
// small image for the producer and the console.
func labgenDockerfile(l *schemas.Lab, opts Options) []byte {
	var b strings.Builder
	b.WriteString(generated(l, "#"))
	b.WriteString(`# The labgen image: the producer and the query console of the lab. It is
# built from labgen's own source in src/, which labgen render writes next to
# this file, so Docker is all the build needs.
`)
	if opts.NoSource {
		b.WriteString(`#
# This directory was rendered without labgen's source, so src/ is missing
# and the image cannot be built yet. Render the lab again with a labgen
# binary (it writes its own source into src/), or copy the root of labgen's
# Go module (go.mod, go.sum and the package folders) into labgen/src/.
`)
	}
	// The modules come in a layer of their own, keyed by go.mod and
	// go.sum only: a change of labgen's source rebuilds from the COPY of
	// src/ on, without downloading the modules again.
	fmt.Fprintf(&b, `FROM %s AS build
WORKDIR /src
COPY src/go.mod src/go.sum ./
RUN go mod download
COPY src/ ./
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/labgen/labgen/cli.Version=%s" \
    -o /out/labgen ./cmd/labgen

FROM %s
RUN adduser -D -H -u 10001 labgen
COPY --from=build /out/labgen /usr/local/bin/labgen
USER labgen
CMD ["labgen", "help"]
`, goBuildImage(), opts.LabgenVersion, labgenRuntimeImage)
	return []byte(b.String())
}

// labgenSource lists labgen's embedded source files that building the
// command needs: no tests, no test data.
func labgenSource() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(labgen.Source, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := labgen.Source.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = b
		return nil
	})
	return out, err
}

// sourceTreeHash is one hash over labgen/src: the sorted paths and
// contents of its files.
func sourceTreeHash(files Files) (string, int) {
	var paths []string
	for p := range files {
		if strings.HasPrefix(p, labgenSrcDir) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return "", 0
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%x  %s\n", sha256.Sum256(files[p]), strings.TrimPrefix(p, labgenSrcDir))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), len(paths)
}
