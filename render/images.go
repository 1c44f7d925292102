package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"

	labgen "github.com/labgen/labgen"
	"github.com/labgen/labgen/schemas"
)

// labgenRuntimeImage is the base of the labgen image's last stage; the
// build stage is the Go image of labgen's go.mod.
const labgenRuntimeImage = "alpine:3.22"

// Image is an image the stack pulls, or builds on.
type Image = schemas.Image

// stackImages lists the images of the stack in a fixed order: the
// components' (schemas.ComponentRegistry), then the bases of the labgen
// image when a service runs labgen.
func stackImages(l *schemas.Lab) []Image {
	out := l.StackImages()
	if needsLabgenImage(l) {
		out = append(out, Image{Role: "labgen-build", Ref: goBuildImage()}, Image{Role: "labgen-runtime", Ref: labgenRuntimeImage})
	}
	return out
}

func zookeeperImage(f *schemas.Fluss) string { return "zookeeper:" + f.ZooKeeperVersion }

// needsLabgenImage tells whether a service runs labgen itself.
func needsLabgenImage(l *schemas.Lab) bool {
	return producerRuns(l) || l.Stack.Console != nil
}

func producerRuns(l *schemas.Lab) bool { return l.ProducerRuns() }

// goBuildImage is the Go image matching labgen's go.mod.
func goBuildImage() string {
	return "golang:" + goVersion() + "-alpine"
}

// goVersion reads the go directive of labgen's own go.mod.
func goVersion() string {
	b, err := labgen.Source.ReadFile("go.mod")
	if err != nil {
		return "1"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "1"
}

// builtImageTag names an image built from files of the directory: the tag
// is a hash of the build context, so that `docker compose up` builds the
// image again whenever a render changed what goes into it.
func builtImageTag(project, name string, files Files, prefix string) string {
	var paths []string
	for p := range files {
		if strings.HasPrefix(p, prefix) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	return fmt.Sprintf("%s-%s:%x", project, name, h.Sum(nil)[:6])
}
