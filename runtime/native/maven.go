package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
	"github.com/labgen/labgen/native/engines"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
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

// engineModule is a module of native/engines: when a lab needs it, how
// Maven gets its jars and where they go.
type engineModule struct {
	name   string
	needed func(s *schemas.Stack) bool
	// pinned modules list exact artifacts (dependency:copy of their
	// artifactItems, each jar alone); the others resolve a class path.
	pinned bool
	put    func(cp *Classpaths, jars []string)
}

// engineTable is every module, in the aggregator's order.
var engineTable = []engineModule{
	{name: "flink", needed: func(s *schemas.Stack) bool { return s.Flink != nil }, put: func(cp *Classpaths, j []string) { cp.Flink = j }},
	{name: "zookeeper", needed: hasFluss, put: func(cp *Classpaths, j []string) { cp.ZooKeeper = j }},
	{name: "kafka", needed: func(s *schemas.Stack) bool { return s.Kafka != nil }, put: func(cp *Classpaths, j []string) { cp.Kafka = j }},
	{name: "fluss", needed: hasFluss, put: func(cp *Classpaths, j []string) { cp.Fluss = j }},
	{name: "fluss-paimon", needed: hasFluss, pinned: true, put: func(cp *Classpaths, j []string) { cp.FlussPaimonPlugin = j }},
}

func hasFluss(s *schemas.Stack) bool { return s.Fluss != nil }

// lockModule pins the lab's connector jars (labgen.lock), as a pinned
// module written for the lab.
const lockModule = "lock"

// Resolve finds (downloading them the first time, ~600 MB) the jars of the
// lab's JVM services and checks the lab's connector jars against
// labgen.lock. The result is cached under Cache()/maven keyed by a hash of
// the POMs and the lock's jars, so a warm call costs a few file stats.
// Its phases: the inputs (tools, lock, modules, POMs), Maven's fetch, the
// class paths collected from what it wrote, the cache.
func Resolve(ctx context.Context, lab *labdir.Lab, progress func(string)) (*Classpaths, error) {
	if progress == nil {
		progress = func(string) {}
	}
	mvn, err := mavenTools()
	if err != nil {
		return nil, err
	}
	lockJars, err := labLockJars(lab)
	if err != nil {
		return nil, err
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
	if err := writeFiles(dir, poms); err != nil {
		return nil, err
	}
	if err := fetch(ctx, mvn, dir, modules, len(lockJars) > 0, progress); err != nil {
		return nil, err
	}
	cp, stamps, err := collect(dir, poms, modules, lockJars)
	if err != nil {
		return nil, err
	}
	pruneCopies(dir, modules, cp, stamps)
	b, err := json.MarshalIndent(cached{Classpaths: cp, Lock: stamps}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(result, b); err != nil {
		return nil, err
	}
	return cp, nil
}

// mavenTools finds java and mvn (Maven's path is returned).
func mavenTools() (string, error) {
	if _, err := lookJava(); err != nil {
		return "", fmt.Errorf("%w: the native stack needs Java 17 and Maven; install them with `apt-get install default-jdk-headless maven`", ErrNoJava)
	}
	mvn, err := lookMvn()
	if err != nil {
		return "", fmt.Errorf("%w: the native stack needs Maven to fetch its jars; install it with `apt-get install default-jdk-headless maven`", ErrNoJava)
	}
	return mvn, nil
}

// labLockJars are the connector jars of the lab's labgen.lock (none
// without Flink).
func labLockJars(lab *labdir.Lab) ([]LockJar, error) {
	if lab.Lab.Stack.Flink == nil {
		return nil, nil
	}
	lock, err := os.ReadFile(filepath.Join(lab.Dir, "labgen.lock"))
	if err != nil {
		return nil, fmt.Errorf("reading the lab's connector jars: %w", err)
	}
	return ReadLockJars(lock)
}

// writeFiles puts the POMs into the cache directory.
func writeFiles(dir string, files map[string][]byte) error {
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fetch runs Maven: one build-classpath over the class-path modules, one
// copy per pinned module (copy 2.8 runs once per reactor, on its first
// project), saying every 15 s that it is still at it (a first resolution
// downloads hundreds of megabytes without a word from Maven -q).
func fetch(ctx context.Context, mvn, dir string, modules []engineModule, lock bool, progress func(string)) error {
	var names []string
	for _, m := range modules {
		names = append(names, m.name)
	}
	progress(resolvingMessage(names))
	start := time.Now()
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
	run := func(modules []string, goal ...string) error {
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
	var classpath, pinned []string
	for _, m := range modules {
		if m.pinned {
			pinned = append(pinned, m.name)
		} else {
			classpath = append(classpath, m.name)
		}
	}
	if lock {
		pinned = append(pinned, lockModule)
	}
	// The class-path modules resolve side by side (-T) and fetch more jars
	// at once than Maven's default 5: a first resolution is mostly waiting
	// on Maven Central (56 s one at a time, 27 s so, same class paths).
	if err := run(classpath, "-T", "4", "-Dmaven.artifact.threads=10", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt"); err != nil {
		return err
	}
	for _, m := range pinned {
		if err := run([]string{m}, "dependency:copy"); err != nil {
			return err
		}
	}
	stop()
	progress(fmt.Sprintf("Maven fetched the jars in %s", time.Since(start).Round(time.Second)))
	return nil
}

// collect reads what Maven wrote into the class paths: each class-path
// module's classpath.txt, each pinned module's artifacts, and the lock's
// jars, each checked against its sha256 (stamps remember them).
func collect(dir string, poms map[string][]byte, modules []engineModule, lockJars []LockJar) (*Classpaths, []jarStamp, error) {
	cp := &Classpaths{Log4j: filepath.Join(dir, "log4j2.properties")}
	for _, m := range modules {
		if m.pinned {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, m.name, "classpath.txt"))
		if err != nil {
			return nil, nil, fmt.Errorf("maven wrote no class path for %s: %w", m.name, err)
		}
		var jars []string
		if s := strings.TrimSpace(string(b)); s != "" {
			jars = strings.Split(s, string(os.PathListSeparator))
		}
		m.put(cp, jars)
	}
	// The copied jars are also in the local repository, where the class
	// paths point; use those and drop the copies.
	repo := localRepo(append(append(append([]string{}, cp.Flink...), cp.Kafka...), cp.Fluss...))
	pinnedJar := func(module string, a artifact) string {
		file := a.Artifact + "-" + a.Version + ".jar"
		if repo != "" {
			p := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(a.Group, ".", "/")), a.Artifact, a.Version, file)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return filepath.Join(dir, module, "target", "jars", file)
	}
	props, err := pomProperties(poms["pom.xml"])
	if err != nil {
		return nil, nil, err
	}
	for _, m := range modules {
		if !m.pinned {
			continue
		}
		items, err := artifactItems(poms[m.name+"/pom.xml"])
		if err != nil {
			return nil, nil, fmt.Errorf("%s/pom.xml: %w", m.name, err)
		}
		var jars []string
		for _, it := range items {
			it.Version = expand(props, it.Version)
			jars = append(jars, pinnedJar(m.name, it))
		}
		m.put(cp, jars)
	}
	var stamps []jarStamp
	for _, lj := range lockJars {
		path := pinnedJar(lockModule, artifact{Group: lj.Group, Artifact: lj.Artifact, Version: lj.Version})
		st, err := verifyJar(path, lj)
		if err != nil {
			return nil, nil, err
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
	return cp, stamps, nil
}

// pruneCopies removes a pinned module's copies when every jar it needs
// is in the local repository.
func pruneCopies(dir string, modules []engineModule, cp *Classpaths, stamps []jarStamp) {
	pinned := []string{lockModule}
	for _, m := range modules {
		if m.pinned {
			pinned = append(pinned, m.name)
		}
	}
	used := append(append([]string{}, cp.FlussPaimonPlugin...), stampPaths(stamps)...)
	for _, m := range pinned {
		inside := filepath.Join(dir, m) + string(os.PathSeparator)
		if !slices.ContainsFunc(used, func(p string) bool { return strings.HasPrefix(p, inside) }) {
			os.RemoveAll(filepath.Join(dir, m, "target"))
		}
	}
}

// engineModules are the modules of engineTable the lab's stack needs.
func engineModules(lab *labdir.Lab) []engineModule {
	var out []engineModule
	for _, m := range engineTable {
		if m.needed(lab.Lab.Stack) {
			out = append(out, m)
		}
	}
	return out
}

func resolvingMessage(modules []string) string {
	// The native stack's engine versions are native/engines' POMs', not the
	// lab's stack settings (those pick the images and connector jars);
	// the record names what ran, from the jars.
	return fmt.Sprintf("resolving the native engines' jars (%s, versions pinned in native/engines) with Maven (first time: ~600 MB into ~/.m2, a few minutes)", strings.Join(modules, ", "))
}

// pomFiles are the files Maven runs on, by relative path: native/engines'
// aggregator (its module list cut to the lab's engines), the engines' POMs
// and log4j config, and a "lock" module pinning the lock's jars.
func pomFiles(modules []engineModule, lockJars []LockJar) (map[string][]byte, error) {
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
	var names []string
	for _, m := range modules {
		names = append(names, m.name)
	}
	if len(lockJars) > 0 {
		names = append(names, lockModule)
		files[lockModule+"/pom.xml"] = lockPOM(lockJars)
	}
	root, err := withModules(files["pom.xml"], names)
	if err != nil {
		return nil, err
	}
	files["pom.xml"] = root
	return files, nil
}

// withModules is the aggregator POM with its <modules> element listing
// names instead: the element's place is found by the XML decoder, the
// rest of the file is kept byte for byte (so the cache key changes only
// with the modules).
func withModules(pom []byte, names []string) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(pom))
	depth, start := 0, int64(-1)
	for {
		before := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("native/engines/pom.xml: no <modules> under <project>: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == "modules" {
				start = before
			}
		case xml.EndElement:
			if depth == 2 && t.Name.Local == "modules" && start >= 0 {
				var b strings.Builder
				b.WriteString("<modules>")
				for _, m := range names {
					fmt.Fprintf(&b, "\n    <module>%s</module>", m)
				}
				b.WriteString("\n  </modules>")
				end := d.InputOffset()
				return slices.Concat(pom[:start], []byte(b.String()), pom[end:]), nil
			}
			depth--
		}
	}
}

// artifact is a Maven artifact's coordinates.
type artifact struct {
	Group    string `xml:"groupId"`
	Artifact string `xml:"artifactId"`
	Version  string `xml:"version"`
}

// artifactItems are the artifacts a pinned module's dependency:copy
// fetches.
func artifactItems(pom []byte) ([]artifact, error) {
	var p struct {
		Items []artifact `xml:"build>plugins>plugin>configuration>artifactItems>artifactItem"`
	}
	if err := xml.Unmarshal(pom, &p); err != nil {
		return nil, err
	}
	if len(p.Items) == 0 {
		return nil, errors.New("no artifactItems")
	}
	return p.Items, nil
}

// pomProperties are a POM's <properties>.
func pomProperties(pom []byte) (map[string]string, error) {
	var p struct {
		Props struct {
			List []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"properties"`
	}
	if err := xml.Unmarshal(pom, &p); err != nil {
		return nil, fmt.Errorf("native/engines/pom.xml: %w", err)
	}
	out := map[string]string{}
	for _, e := range p.Props.List {
		out[e.XMLName.Local] = strings.TrimSpace(e.Value)
	}
	return out, nil
}

// expand resolves a ${property} version; anything else is as written.
func expand(props map[string]string, v string) string {
	if name, ok := strings.CutPrefix(v, "${"); ok {
		if name, ok = strings.CutSuffix(name, "}"); ok && props[name] != "" {
			return props[name]
		}
	}
	return v
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
