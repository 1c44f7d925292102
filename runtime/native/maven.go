package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
	"github.com/labgen/labgen/native/engines"
	"github.com/labgen/labgen/runtime/labdir"
)

// Classpaths are the jars of the native stack's JVMs, resolved by Maven
// from the POMs of native/engines and the lab's labgen.lock.
type Classpaths struct {
	// Flink is flink-dist's lib/ rebuilt from Maven jars plus the lab's
	// connector jars (the lock's lib/ jars).
	Flink []string
	// ZooKeeper, Kafka and Fluss are the servers' class paths.
	ZooKeeper, Kafka, Fluss []string
	// FlussPaimonPlugin is what FLUSS_PLUGINS_DIR/paimon/ holds.
	FlussPaimonPlugin []string
	// TieringJar is the Fluss tiering job (the lock's opt/ jar), if any.
	TieringJar string
	// Log4j is the Log4j 2 configuration file every JVM uses.
	Log4j string
}

// LockJar is one [connectors] line of labgen.lock.
type LockJar struct {
	// Path is where the image puts it, relative to /opt/flink (lib/x.jar).
	Path                     string
	Group, Artifact, Version string
	SHA256                   string
}

// File is the jar's file name in a Maven repository.
func (j LockJar) File() string { return j.Artifact + "-" + j.Version + ".jar" }

// ReadLockJars lists the connector jars of a rendered lab's labgen.lock: the
// jars the lab's Flink image downloads, with their checksums. A lock
// without the section (a stack without Flink) lists none.
func ReadLockJars(lock []byte) ([]LockJar, error) {
	var out []LockJar
	section := ""
	for _, line := range strings.Split(string(lock), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		if section != "[connectors]" || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("labgen.lock: bad connector line %q", line)
		}
		coords := strings.Split(f[1], ":")
		sum, ok := strings.CutPrefix(f[2], "sha256:")
		if len(coords) != 3 || !ok || len(sum) != 64 {
			return nil, fmt.Errorf("labgen.lock: bad connector line %q", line)
		}
		out = append(out, LockJar{Path: f[0], Group: coords[0], Artifact: coords[1], Version: coords[2], SHA256: sum})
	}
	return out, nil
}

// Maven's tools, looked up once per Resolve; tests replace them.
var (
	lookJava = func() (string, error) { return exec.LookPath("java") }
	lookMvn  = func() (string, error) { return exec.LookPath("mvn") }
)

// ErrNoJava is wrapped by Resolve's error when java or mvn is missing.
var ErrNoJava = errors.New("java or mvn missing")

// Resolve finds (downloading them the first time, ~600 MB) the jars of the
// lab's JVM services and checks the lab's connector jars against
// labgen.lock. The result is cached under Cache()/maven keyed by a hash of
// the POMs and the lock's jars, so a warm call costs a few file stats.
func Resolve(ctx context.Context, lab *labdir.Lab, progress func(string)) (*Classpaths, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if _, err := lookJava(); err != nil {
		return nil, fmt.Errorf("%w: the native stack needs Java 17 and Maven; install them with `apt-get install default-jdk-headless maven`", ErrNoJava)
	}
	mvn, err := lookMvn()
	if err != nil {
		return nil, fmt.Errorf("%w: the native stack needs Maven to fetch its jars; install it with `apt-get install default-jdk-headless maven`", ErrNoJava)
	}
	var lockJars []LockJar
	if lab.Lab.Stack.Flink != nil {
		lock, err := os.ReadFile(filepath.Join(lab.Dir, "labgen.lock"))
		if err != nil {
			return nil, fmt.Errorf("reading the lab's connector jars: %w", err)
		}
		if lockJars, err = ReadLockJars(lock); err != nil {
			return nil, err
		}
	}
	modules := engineModules(lab)
	poms, err := pomFiles(modules, lockJars)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(Cache(), "maven", inputsHash(poms))
	result := filepath.Join(dir, "classpaths.json")
	if cp, ok := warm(result); ok {
		return cp, nil
	}

	for name, body := range poms {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return nil, err
		}
	}
	progress(resolvingMessage(modules))
	start := time.Now()
	// A first resolution downloads hundreds of megabytes without a word
	// from Maven (-q); say every so often that it is still at it.
	stopTicking, ticked := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ticked)
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopTicking:
				return
			case <-t.C:
				progress(fmt.Sprintf("Maven is still fetching (%s so far)", time.Since(start).Round(time.Second)))
			}
		}
	}()
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { close(stopTicking); <-ticked }) }
	defer stop()
	var cpModules, pinned []string
	for _, m := range modules {
		if m == "fluss-paimon" {
			pinned = append(pinned, m)
		} else {
			cpModules = append(cpModules, m)
		}
	}
	if len(lockJars) > 0 {
		pinned = append(pinned, "lock")
	}
	mvnRun := func(modules []string, goal ...string) error {
		if len(modules) == 0 {
			return nil
		}
		args := append([]string{"-B", "-q", "-C", "-Dstyle.color=never",
			"-f", filepath.Join(dir, "pom.xml"), "-pl", strings.Join(modules, ",")}, goal...)
		cmd := exec.CommandContext(ctx, mvn, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("Maven could not fetch the native stack's jars (%v):\n%s", err, mavenTail(out.String(), 30))
		}
		return nil
	}
	if err := mvnRun(cpModules, "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt"); err != nil {
		return nil, err
	}
	// copy 2.8 runs once per reactor (on its first project): one run per
	// module.
	for _, m := range pinned {
		if err := mvnRun([]string{m}, "dependency:copy"); err != nil {
			return nil, err
		}
	}
	stop()
	progress(fmt.Sprintf("Maven fetched the jars in %s", time.Since(start).Round(time.Second)))

	cp := &Classpaths{Log4j: filepath.Join(dir, "log4j2.properties")}
	read := func(module string) ([]string, error) {
		b, err := os.ReadFile(filepath.Join(dir, module, "classpath.txt"))
		if err != nil {
			return nil, fmt.Errorf("maven wrote no class path for %s: %w", module, err)
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			return nil, nil
		}
		return strings.Split(s, string(os.PathListSeparator)), nil
	}
	for _, m := range cpModules {
		jars, err := read(m)
		if err != nil {
			return nil, err
		}
		switch m {
		case "flink":
			cp.Flink = jars
		case "zookeeper":
			cp.ZooKeeper = jars
		case "kafka":
			cp.Kafka = jars
		case "fluss":
			cp.Fluss = jars
		}
	}
	// The copied jars are also in the local repository, where the class
	// paths point; use those and drop the copies.
	repo := localRepo(append(append(append([]string{}, cp.Flink...), cp.Kafka...), cp.Fluss...))
	pinnedJar := func(module, g, a, v string) string {
		file := a + "-" + v + ".jar"
		if repo != "" {
			p := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(g, ".", "/")), a, v, file)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return filepath.Join(dir, module, "target", "jars", file)
	}
	for _, m := range pinned {
		if m != "fluss-paimon" {
			continue
		}
		for _, it := range pluginItems.FindAllStringSubmatch(string(poms["fluss-paimon/pom.xml"]), -1) {
			cp.FlussPaimonPlugin = append(cp.FlussPaimonPlugin, pinnedJar(m, it[1], it[2], expandVersion(poms["pom.xml"], it[3])))
		}
	}
	var stamps []jarStamp
	for _, lj := range lockJars {
		path := pinnedJar("lock", lj.Group, lj.Artifact, lj.Version)
		st, err := verifyJar(path, lj)
		if err != nil {
			return nil, err
		}
		stamps = append(stamps, st)
		if strings.HasPrefix(lj.Path, "opt/") {
			if lj.Artifact == "fluss-flink-tiering" {
				cp.TieringJar = path
			}
			continue
		}
		if !hasString(cp.Flink, path) {
			cp.Flink = append(cp.Flink, path)
		}
	}
	for _, m := range pinned {
		all := true
		for _, p := range append(append([]string{}, cp.FlussPaimonPlugin...), stampPaths(stamps)...) {
			if strings.HasPrefix(p, filepath.Join(dir, m)+string(os.PathSeparator)) {
				all = false
			}
		}
		if all {
			os.RemoveAll(filepath.Join(dir, m, "target"))
		}
	}
	c := cached{Classpaths: cp, Lock: stamps}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(result, b); err != nil {
		return nil, err
	}
	return cp, nil
}

// engineModules are the native/engines modules the lab's stack uses.
func engineModules(lab *labdir.Lab) []string {
	s := lab.Lab.Stack
	var m []string
	if s.Flink != nil {
		m = append(m, "flink")
	}
	if s.Fluss != nil {
		m = append(m, "zookeeper")
	}
	if s.Kafka != nil {
		m = append(m, "kafka")
	}
	if s.Fluss != nil {
		m = append(m, "fluss", "fluss-paimon")
	}
	return m
}

func resolvingMessage(modules []string) string {
	// The native stack's engine versions are native/engines' POMs', not the
	// lab's stack settings (those pick the images and connector jars);
	// the record names what ran, from the jars.
	return fmt.Sprintf("resolving the native engines' jars (%s, versions pinned in native/engines) with Maven (first time: ~600 MB into ~/.m2, a few minutes)", strings.Join(modules, ", "))
}

var modulesBlock = regexp.MustCompile(`(?s)<modules>.*?</modules>`)

// pomFiles are the files Maven runs on, by relative path: native/engines'
// aggregator (its module list cut to the lab's engines), the engines' POMs
// and log4j config, and a "lock" module pinning the lock's jars.
func pomFiles(modules []string, lockJars []LockJar) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(engines.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := engines.FS.ReadFile(p)
		files[p] = b
		return err
	})
	if err != nil {
		return nil, err
	}
	all := modules
	if len(lockJars) > 0 {
		all = append(append([]string{}, modules...), "lock")
		files["lock/pom.xml"] = lockPOM(lockJars)
	}
	var mb strings.Builder
	mb.WriteString("<modules>")
	for _, m := range all {
		fmt.Fprintf(&mb, "\n    <module>%s</module>", m)
	}
	mb.WriteString("\n  </modules>")
	files["pom.xml"] = modulesBlock.ReplaceAll(files["pom.xml"], []byte(mb.String()))
	return files, nil
}

// lockPOM pins exactly the lock's jars: each with every transitive
// dependency excluded, as the Flink image downloads only these files.
func lockPOM(jars []LockJar) []byte {
	// As fluss-paimon/pom.xml: dependency:copy 2.8 fetches each jar alone
	// (fluss-lake-paimon's POM has an unpublished parent).
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by labgen from the lab's labgen.lock: the connector jars of the lab's Flink image. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>labgen.native</groupId>
    <artifactId>engines</artifactId>
    <version>0</version>
  </parent>
  <artifactId>lock</artifactId>
  <packaging>pom</packaging>
  <build><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId>
    <artifactId>maven-dependency-plugin</artifactId>
    <version>2.8</version>
    <configuration>
      <outputDirectory>${project.build.directory}/jars</outputDirectory>
      <artifactItems>
`)
	for _, j := range jars {
		fmt.Fprintf(&b, "        <artifactItem><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></artifactItem>\n", j.Group, j.Artifact, j.Version)
	}
	b.WriteString("      </artifactItems>\n    </configuration>\n  </plugin></plugins></build>\n</project>\n")
	return []byte(b.String())
}

var (
	pluginItems = regexp.MustCompile(`<artifactItem><groupId>([^<]+)</groupId><artifactId>([^<]+)</artifactId><version>([^<]+)</version></artifactItem>`)
	propRef     = regexp.MustCompile(`^\$\{([^}]+)\}$`)
)

// expandVersion resolves a ${property} version from the aggregator POM.
func expandVersion(pom []byte, v string) string {
	m := propRef.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	re := regexp.MustCompile("<" + regexp.QuoteMeta(m[1]) + ">([^<]+)</")
	if p := re.FindSubmatch(pom); p != nil {
		return string(p[1])
	}
	return v
}

// localRepo is the Maven local repository the class path jars lie in:
// each path ends in GROUP/ARTIFACT/VERSION/ARTIFACT-VERSION[-x].jar.
func localRepo(jars []string) string {
	for _, j := range jars {
		if !strings.Contains(j, "/org/apache/") {
			continue
		}
		i := strings.Index(j, "/org/apache/")
		return j[:i]
	}
	return ""
}

func stampPaths(s []jarStamp) []string {
	var out []string
	for _, x := range s {
		out = append(out, x.Path)
	}
	return out
}

// inputsHash keys the cache: the files Maven runs on and where the local
// repository is (a different ~/.m2 holds different files).
func inputsHash(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	fmt.Fprintf(h, "home\x00%s\x00", getenv("HOME"))
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// jarStamp remembers a verified lock jar, so that a warm Resolve re-hashes
// it only when it changed on disk.
type jarStamp struct {
	Path    string    `json:"path"`
	SHA256  string    `json:"sha256"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
}

type cached struct {
	*Classpaths
	Lock []jarStamp `json:"lock"`
}

// warm reads a cached result, if every jar it names is still there and the
// lock's jars are unchanged (or re-hash to the locked sums).
func warm(path string) (*Classpaths, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var c cached
	if json.Unmarshal(b, &c) != nil || c.Classpaths == nil {
		return nil, false
	}
	cp := c.Classpaths
	for _, list := range [][]string{cp.Flink, cp.ZooKeeper, cp.Kafka, cp.Fluss, cp.FlussPaimonPlugin, {cp.Log4j}} {
		for _, p := range list {
			if _, err := os.Stat(p); err != nil {
				return nil, false
			}
		}
	}
	for _, s := range c.Lock {
		st, err := os.Stat(s.Path)
		if err != nil {
			return nil, false
		}
		if st.Size() == s.Size && st.ModTime().Equal(s.ModTime) {
			continue
		}
		if sum, err := fileSHA256(s.Path); err != nil || sum != s.SHA256 {
			return nil, false
		}
	}
	return cp, true
}

// verifyJar checks a jar against the lock's sha256.
func verifyJar(path string, lj LockJar) (jarStamp, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return jarStamp{}, err
	}
	if sum != lj.SHA256 {
		return jarStamp{}, fmt.Errorf("%s (%s:%s:%s) has sha256 %s, but labgen.lock pins %s: the jar in the Maven repository is not the one the lab was rendered with; delete it and run again",
			path, lj.Group, lj.Artifact, lj.Version, sum, lj.SHA256)
	}
	st, err := os.Stat(path)
	if err != nil {
		return jarStamp{}, err
	}
	return jarStamp{Path: path, SHA256: sum, Size: st.Size(), ModTime: st.ModTime()}, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeFileAtomic(path string, b []byte) error { return atomicfile.Write(path, b, 0o644) }

func mavenTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
