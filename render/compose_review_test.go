package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/labgen/labgen/schemas"
)

// Tests of issue 22: the compose lab reviewed against the images' and
// compose's sources.

// TestTieringFailureConverges (finding 13): one failed start of the
// one-shot tiering service must not leave the streaming jobs unsubmitted.
// Docker retries tiering a bounded number of times (a restarting container
// is not "exited", so compose's wait for it goes on), and the job
// submitter's dependency on it is optional: once tiering has failed for
// good, compose starts the submitter anyway, whose keep loop starts the
// tiering job itself before it submits.
func TestTieringFailureConverges(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			files := stackRender(t, l, Options{NoSource: true})
			p, _ := loadCompose(t, files)
			tiering, ok := p.Services["tiering"]
			if l.Stack.Fluss == nil {
				if ok {
					t.Fatalf("a stack without Fluss runs tiering")
				}
				return
			}
			if !ok {
				t.Fatalf("no tiering service")
			}
			policy, n, _ := strings.Cut(tiering.Restart, ":")
			if attempts, err := strconv.Atoi(n); policy != types.RestartPolicyOnFailure || err != nil || attempts < 1 {
				t.Errorf("tiering restarts %q; want on-failure:N, a few attempts", tiering.Restart)
			}
			sub := p.Services["job-submitter"]
			dep, ok := sub.DependsOn["tiering"]
			if !ok || dep.Condition != types.ServiceConditionCompletedSuccessfully || dep.Required {
				t.Errorf("job-submitter depends on tiering as %+v (present %v); want it to wait for tiering to end, not required", dep, ok)
			}
			for name, d := range sub.DependsOn {
				if name != "tiering" && !d.Required {
					t.Errorf("job-submitter's dependency on %s is optional", name)
				}
			}
			// The submitter's loop starts the tiering job when it does not
			// run, before the streaming jobs.
			script := string(files["scripts/flink-jobs.sh"])
			if !strings.Contains(script, "keep_once() {\n\ttiering && submit\n}") {
				t.Errorf("keep's round does not start the tiering job:\n%s", script)
			}
			if sub.Command[len(sub.Command)-1] != "keep" {
				t.Errorf("job-submitter runs %v, not the keep loop", sub.Command)
			}
		})
	}
}

// flagMB reads a JVM memory flag's size in MiB ("-Xmx128m" → 128).
func flagMB(t *testing.T, flags, flag string) int {
	t.Helper()
	m := regexp.MustCompile(`(^| )` + regexp.QuoteMeta(flag) + `([0-9]+)([mMgG])( |$)`).FindStringSubmatch(flags)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[2])
	if m[3] == "g" || m[3] == "G" {
		n <<= 10
	}
	return n
}

// TestJVMLimitsHoldTheirCaps (finding 14): the JVMs that load many classes
// (Flink's clients and SQL gateway, Kafka UI) cap heap, metaspace and code
// cache, and their memory limit holds the three plus the JVM's other
// native memory (prove/flink measured about 65 MiB for Flink's SQL client
// planning the seed lab's jobs) and a margin. The TaskManager keeps
// Flink's default metaspace, inside its process size. The budget render
// prints is the limits of compose.yaml.
func TestJVMLimitsHoldTheirCaps(t *testing.T) {
	const otherNativeMB = 80
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			files := stackRender(t, l, Options{NoSource: true})
			p, _ := loadCompose(t, files)
			for name, s := range p.Services {
				var flags string
				switch name {
				case "sql-gateway", "tiering", "job-submitter", "batch-loop":
					flags = *s.Environment["JVM_ARGS"]
				case "kafka-ui":
					flags = *s.Environment["JAVA_OPTS"]
				default:
					continue
				}
				heap, meta, code := flagMB(t, flags, "-Xmx"), flagMB(t, flags, "-XX:MaxMetaspaceSize="), flagMB(t, flags, "-XX:ReservedCodeCacheSize=")
				if heap == 0 || meta == 0 || code == 0 {
					t.Errorf("%s's JVM (%s) does not cap heap, metaspace and code cache", name, flags)
					continue
				}
				if limit := int(s.MemLimit >> 20); limit < heap+meta+code+otherNativeMB {
					t.Errorf("%s: limit %d MiB < heap %d + metaspace %d + code cache %d + %d MiB of other native memory", name, limit, heap, meta, code, otherNativeMB)
				}
			}
			config := string(files["flink/config.yaml"])
			if want := "taskmanager.memory.jvm-metaspace.size: 256m\n"; !strings.Contains(config, want) {
				t.Errorf("flink/config.yaml lacks %q", want)
			}
			_, tm := l.Stack.FlinkMemory()
			for _, name := range TaskManagerNames(l) {
				if got := int(p.Services[name].MemLimit >> 20); got < tm {
					t.Errorf("%s's limit %d MiB is below its process size %d MiB", name, got, tm)
				}
			}
			budget := MemoryBudget(l)
			if len(budget) != len(p.Services) {
				t.Errorf("the budget lists %d services, compose.yaml has %d", len(budget), len(p.Services))
			}
			for _, m := range budget {
				if got := int(p.Services[m.Service].MemLimit >> 20); got != m.MB {
					t.Errorf("the budget gives %s %d MiB, compose.yaml %d MiB", m.Service, m.MB, got)
				}
			}
		})
	}
}

// TestBuiltImagesAreNeverPulled (finding 15a): a service that runs an image
// another service of the project builds has pull_policy never, so that
// compose's up does not try to pull it (and print an Error) first; the
// building service keeps the default, which --build turns into build.
func TestBuiltImagesAreNeverPulled(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			p, _ := loadCompose(t, stackRender(t, l, Options{NoSource: true}))
			built := map[string]string{}
			for name, s := range p.Services {
				if s.Build != nil {
					built[s.Image] = name
				}
			}
			users := 0
			for name, s := range p.Services {
				switch builder, ok := built[s.Image]; {
				case ok && s.Build == nil:
					users++
					if s.PullPolicy != types.PullPolicyNever {
						t.Errorf("%s runs %s, which %s builds, with pull_policy %q; want never", name, s.Image, builder, s.PullPolicy)
					}
				case s.PullPolicy != "":
					t.Errorf("%s has pull_policy %q", name, s.PullPolicy)
				}
			}
			if users == 0 {
				t.Errorf("no service runs an image another one builds")
			}
		})
	}
}

// TestWriteModesIgnoreUmask (finding 15c): the containers read the
// rendered directory as their own users, so the directories and files
// Write makes are 0755 and 0644 (scripts 0755; .env, which only the user's
// own tools read, 0600) even under umask 077. A render over a directory
// the user tightened never widens it (issue 35): its modes stay.
func TestWriteModesIgnoreUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	files := renderSeed(t, nil)
	dir := filepath.Join(t.TempDir(), "out", "orders")
	tight := map[string]os.FileMode{}
	check := func() {
		t.Helper()
		dirs := 0
		err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			want := baseMode(filepath.ToSlash(rel))
			if fi.IsDir() {
				want = dirMode
				dirs++
			}
			if m, ok := tight[rel]; ok {
				want = m
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s has mode %v, want %v", rel, fi.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if dirs < 5 {
			t.Errorf("only %d directories under %s", dirs, dir)
		}
		if fi, err := os.Stat(filepath.Dir(dir)); err != nil || fi.Mode().Perm() != dirMode {
			t.Errorf("the directory Write made above the lab: %v, %v", fi.Mode(), err)
		}
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	check()
	if fi, _ := os.Stat(filepath.Join(dir, ".env")); fi.Mode().Perm() != 0o600 {
		t.Errorf(".env has mode %v, want 0600", fi.Mode().Perm())
	}
	// The user tightens the directory, a subdirectory and two files.
	tight = map[string]os.FileMode{".": 0o700, "sql": 0o700, "compose.yaml": 0o600, "stream-lab": 0o700}
	for rel, m := range tight {
		if err := os.Chmod(filepath.Join(dir, rel), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	check()
}

// TestLoopsStopOnTerm (finding 15d): the long-running loops of
// flink-jobs.sh run as their container's PID 1, which ignores SIGTERM
// without a handler (docker compose stop then waits 10 s and kills). They
// trap it and pause in the background, so that a TERM during a pause ends
// them at once, with status 0.
func TestLoopsStopOnTerm(t *testing.T) {
	l := stackLab(t, nil, nil)
	files := stackRender(t, l, Options{NoSource: true})
	script := string(files["scripts/flink-jobs.sh"])
	for _, fn := range []string{"keep", "batch_loop"} {
		body := script[strings.Index(script, "\n"+fn+"() {\n"):]
		body = body[:strings.Index(body, "\n}\n")]
		if !strings.Contains(body, "\n\tstop_on_signals\n") {
			t.Errorf("%s() does not trap TERM:\n%s", fn, body)
		}
	}
	if !strings.Contains(script, "trap 'log \"stopping\"; exit 0' TERM INT") {
		t.Errorf("flink-jobs.sh has no TERM trap")
	}
	if m := regexp.MustCompile(`(?m)^\s*sleep .*$`).FindAllString(script, -1); len(m) != 1 || !strings.Contains(script, "\tsleep \"$1\" &\n\twait $!\n") {
		t.Errorf("flink-jobs.sh sleeps in the foreground, where a trapped TERM waits for the sleep: %q", m)
	}

	// Run both loops against stand-ins that answer at once: a Flink with
	// every job running and a SQL client that succeeds. Each reaches its
	// pause (30 s; the batch loop's is the lab's) and gets a TERM.
	lab := t.TempDir()
	if err := Write(lab, files); err != nil {
		t.Fatal(err)
	}
	home, bin := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	var jobs []string
	for _, j := range append(l.AvailableJobs(schemas.ModeStreaming), TieringJobName) {
		jobs = append(jobs, `{"jid":"x","name":"`+j+`","state":"RUNNING"}`)
	}
	stand := map[string]string{
		filepath.Join(bin, "curl"):                  "echo '{\"jobs\":[" + strings.Join(jobs, ",") + "]}'",
		filepath.Join(home, "bin", "sql-client.sh"): "echo '| dwd_order_wide |'",
	}
	for p, body := range stand {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []string{"keep", "batch-loop"} {
		t.Run(step, func(t *testing.T) {
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command("sh", filepath.Join(lab, "scripts", "flink-jobs.sh"), step)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FLINK_HOME="+home, "LAB="+lab,
				"MYSQL_CDC_USER=u", "MYSQL_CDC_PASSWORD=p")
			// Its own process group, so that the pause's sleep goes too.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			// Wait until the loop pauses: a sleep of the group runs.
			deadline := time.Now().Add(20 * time.Second)
			for !sleeping(cmd.Process.Pid) {
				if time.Now().After(deadline) {
					b, _ := os.ReadFile(out.Name())
					t.Fatalf("%s never paused:\n%s", step, b)
				}
				time.Sleep(50 * time.Millisecond)
			}
			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				b, _ := os.ReadFile(out.Name())
				if err != nil {
					t.Errorf("%s ended with %v after TERM, want status 0:\n%s", step, err, b)
				}
				if !strings.Contains(string(b), "flink-jobs: stopping") {
					t.Errorf("%s did not say it stops:\n%s", step, b)
				}
				t.Logf("%s ended %v after TERM", step, time.Since(start).Round(time.Millisecond))
			case <-time.After(5 * time.Second):
				t.Errorf("%s still runs 5 s after TERM (it waits for its pause to end)", step)
			}
		})
	}
}

// sleeping tells whether a sleep runs in the process group pgid.
func sleeping(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.HasSuffix(s[:i], "(sleep") {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// TestLabgenImageDownloadsModulesFirst (finding 15e): the labgen image
// downloads the Go modules in a layer keyed by go.mod and go.sum alone, so
// that a change of labgen's source does not download them again.
func TestLabgenImageDownloadsModulesFirst(t *testing.T) {
	df := string(renderSeed(t, nil)["labgen/Dockerfile"])
	var steps []string
	for _, line := range strings.Split(df, "\n") {
		if strings.HasPrefix(line, "COPY ") || strings.HasPrefix(line, "RUN ") || strings.HasPrefix(line, "FROM ") {
			steps = append(steps, line)
		}
	}
	want := []string{"FROM " + goBuildImage() + " AS build", "COPY src/go.mod src/go.sum ./", "RUN go mod download", "COPY src/ ./", "RUN CGO_ENABLED=0 go build -trimpath \\"}
	if len(steps) < len(want) || strings.Join(steps[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("labgen/Dockerfile's build stage is\n%s\nwant it to begin\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
}
