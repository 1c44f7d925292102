package render

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// Tests of issue 11: the rendered stack starts on the first try, on a laptop.

// TestOneBuildPerImage: compose builds through buildx bake, which exports
// targets concurrently; two services building one tag fail the second
// export. Every image tag is built by at most one service, and every
// built image is built by one.
func TestOneBuildPerImage(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			p, _ := loadCompose(t, stackRender(t, l, Options{NoSource: true}))
			builders := map[string][]string{}
			users := map[string]bool{}
			for name, s := range p.Services {
				if s.Build != nil {
					builders[s.Image] = append(builders[s.Image], name)
				}
				if strings.HasPrefix(s.Image, imagePrefix(l)+"-") {
					users[s.Image] = true
				}
			}
			for image, names := range builders {
				if len(names) > 1 {
					t.Errorf("%s is built by %d services: %v", image, len(names), names)
				}
			}
			for image := range users {
				if len(builders[image]) != 1 {
					t.Errorf("%s is used but built by no service", image)
				}
			}
		})
	}
}

// TestMemoryBudget sums the memory limits of the rendered compose: every
// service has one, and the seed lab's default stack stays within 7 GiB,
// 4.5 GiB without the lakes (6 and 4 before issue 22's limits that hold
// each JVM's capped heap, metaspace and code cache).
func TestMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		vars  []schemas.VarArg
		limit int64
	}{
		{nil, 7 << 30},
		{[]schemas.VarArg{{Name: "lakes", Value: "false"}}, 9 << 29},
	} {
		files := renderSeed(t, c.vars)
		p, _ := loadCompose(t, files)
		var sum int64
		for name, s := range p.Services {
			if s.MemLimit <= 0 {
				t.Errorf("%v: service %s has no mem_limit", c.vars, name)
			}
			sum += int64(s.MemLimit)
		}
		t.Logf("%v: %d services, %d MiB of limits", c.vars, len(p.Services), sum>>20)
		if sum > c.limit {
			t.Errorf("%v: the limits sum to %d MiB, more than %d MiB", c.vars, sum>>20, c.limit>>20)
		}
		if !strings.Contains(string(files["runbook.md"]), "## Resources\n") {
			t.Errorf("%v: the runbook has no Resources section", c.vars)
		}
		for name := range p.Services {
			if !strings.Contains(string(files["runbook.md"]), "| "+name+" | ") {
				t.Errorf("%v: the runbook's Resources table lacks %s", c.vars, name)
			}
		}
	}
}

// jvmLaunchers start a JVM when a health check runs them.
var jvmLaunchers = regexp.MustCompile(`(^|[ /;&|])(java|kafka-[a-z-]+\.sh|zkServer\.sh|zkCli\.sh|sql-client\.sh|flink)( |$)`)

// TestJVMsHaveHeapsAndChecksAreCheap: every JVM of the stack is started
// with an explicit heap, and a health check starts at most one JVM per
// 30 s.
func TestJVMsHaveHeapsAndChecksAreCheap(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			files := stackRender(t, l, Options{NoSource: true})
			p, _ := loadCompose(t, files)
			for name, s := range p.Services {
				if hc := s.HealthCheck; hc != nil && len(hc.Test) > 1 && jvmLaunchers.MatchString(hc.Test[1]) {
					if hc.Interval == nil || time.Duration(*hc.Interval) < 30*time.Second ||
						hc.StartInterval != nil && time.Duration(*hc.StartInterval) < 30*time.Second {
						t.Errorf("%s's health check starts a JVM more often than every 30 s: %s", name, hc.Test[1])
					}
					if !strings.Contains(hc.Test[1], "-Xmx") {
						t.Errorf("%s's health check starts a JVM without a heap: %s", name, hc.Test[1])
					}
				}
				heap := func(k string) string {
					if v := s.Environment[k]; v != nil {
						return *v
					}
					return ""
				}
				var ok bool
				switch {
				case name == "jobmanager" || strings.HasPrefix(name, "taskmanager"):
					ok = strings.Contains(string(files["flink/config.yaml"]), strings.SplitN(name, "-", 2)[0]+".memory.process.size: ")
				case name == "sql-gateway" || name == "tiering" || name == "job-submitter" || name == "batch-loop":
					ok = strings.Contains(heap("JVM_ARGS"), "-Xmx")
				case name == "kafka" || name == "kafka-init":
					ok = strings.Contains(heap("KAFKA_HEAP_OPTS"), "-Xmx")
				case name == "kafka-ui":
					ok = strings.Contains(heap("JAVA_OPTS"), "-Xmx")
				case name == "zookeeper":
					ok = heap("ZK_SERVER_HEAP") != ""
				case name == "coordinator-server" || name == "tablet-server":
					ok = strings.Contains(heap("JVM_ARGS"), "-Xmx")
				default:
					ok = true // no JVM
				}
				if !ok {
					t.Errorf("%s runs a JVM without an explicit heap", name)
				}
			}
		})
	}
}

// TestLakelessRenderCarriesNoLakes: without Fluss and Iceberg nothing of
// them is left in the stack's files.
func TestLakelessRenderCarriesNoLakes(t *testing.T) {
	files := renderSeed(t, []schemas.VarArg{{Name: "lakes", Value: "false"}})
	lake := regexp.MustCompile(`(?i)fluss|paimon|iceberg|tiering|warehouse|lake.tables`)
	for _, f := range []string{"compose.yaml", "flink/Dockerfile", "flink/config.yaml", "flink/entrypoint.sh", "scripts/flink-jobs.sh", "stream-lab"} {
		for i, line := range strings.Split(string(files[f]), "\n") {
			// The lab's own tables and texts may name lakes (they say why
			// a job is unavailable); the stack may not.
			if lake.MatchString(line) && !strings.Contains(line, "unavailable") && !strings.Contains(line, "lake-consistency-audit") {
				t.Errorf("%s:%d carries a lake part: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestRunbookWithoutConsole: without a console service the runbook says
// how to run a query with the engine's own client.
func TestRunbookWithoutConsole(t *testing.T) {
	l := stackLab(t, nil, func(l *schemas.Lab) { l.Stack.Console = nil })
	files := stackRender(t, l, Options{NoSource: true})
	rb := string(files["runbook.md"])
	if strings.Contains(rb, "In the console") || strings.Contains(rb, "in the console") {
		t.Errorf("the runbook speaks of the console, which the stack does not run")
	}
	for _, want := range []string{"./stream-lab compose exec mysql", "./stream-lab compose exec clickhouse"} {
		if !strings.Contains(rb, want) {
			t.Errorf("the runbook lacks %q", want)
		}
	}
}

// TestTaskManagersVariable: each TaskManager is a service of its own, and
// experiment 06 stops exactly one, saying which.
func TestTaskManagersVariable(t *testing.T) {
	files := renderSeed(t, []schemas.VarArg{{Name: "taskmanagers", Value: "3"}})
	p, _ := loadCompose(t, files)
	for _, name := range []string{"taskmanager", "taskmanager-2", "taskmanager-3"} {
		s, ok := p.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		if s.Deploy != nil && s.Deploy.Replicas != nil {
			t.Errorf("%s has replicas: stop would stop them all", name)
		}
	}
	if !strings.Contains(string(files["flink/config.yaml"]), "taskmanager.numberOfTaskSlots: ") {
		t.Error("no slots in config.yaml")
	}
	rb := string(files["runbook.md"])
	if !strings.Contains(rb, "./stream-lab compose stop taskmanager\n") || !strings.Contains(rb, "one of the lab's 3 TaskManagers") {
		t.Errorf("experiment 06 does not say which TaskManager it stops")
	}
}

// TestSlotsCoverWhatRunsAtOnce: the seed lab runs order_wide, tiering, a
// batch-loop job and a manual batch job at once; the TaskManager has one
// slot more.
func TestSlotsCoverWhatRunsAtOnce(t *testing.T) {
	files := renderSeed(t, nil)
	if !strings.Contains(string(files["flink/config.yaml"]), "taskmanager.numberOfTaskSlots: 5\n") {
		t.Errorf("the seed lab's TaskManager does not have 4 + 1 slots")
	}
	if !strings.Contains(string(files["runbook.md"]), "Flink slots: what the lab runs at once, plus one") {
		t.Errorf("the runbook does not say how the slots are sized")
	}
}

// TestInitUsersOnMariaDB runs the rendered init-users.sh with a stand-in
// mysql on PATH that keeps its stdin, with passwords that break sed and
// SQL quoting, applies what it captured to a real MariaDB and logs in with
// those passwords.
func TestInitUsersOnMariaDB(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	srv := testsrv.MariaDB(t)
	files := renderSeed(t, nil)
	dir := t.TempDir()
	for _, f := range []string{"sql/mysql/users.sql", "sql/mysql/init-users.sh"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, files[f], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := t.TempDir()
	captured := filepath.Join(dir, "captured.sql")
	if err := os.WriteFile(filepath.Join(bin, "mysql"), []byte("#!/bin/sh\ncat >"+shQuote(captured)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dbName, _ := srv.NewDatabase(t)
	password := `p|&\'"$ x` + "\\&1 end"
	env := map[string]string{
		"MYSQL_APP_USER": "app_" + dbName, "MYSQL_APP_PASSWORD": password,
		"MYSQL_CDC_USER": "cdc_" + dbName, "MYSQL_CDC_PASSWORD": password + "'",
		"MYSQL_READER_USER": "rd_" + dbName, "MYSQL_READER_PASSWORD": "|" + password,
	}
	t.Cleanup(func() {
		if db, err := sql.Open("mysql", srv.RootDSN()); err == nil {
			for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
				db.Exec("DROP USER IF EXISTS '" + env[k] + "'@'%'")
			}
			db.Close()
		}
	})
	cmd := exec.Command("sh", filepath.Join(dir, "sql/mysql/init-users.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LAB="+dir, "MYSQL_ROOT_PASSWORD=root-pw")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init-users.sh: %v\n%s", err, out)
	}
	users := strings.ReplaceAll(readFile(t, captured), "`shop`", "`"+dbName+"`")
	// MariaDB knows no IDENTIFIED WITH … BY; its default plugin is
	// mysql_native_password anyway.
	users = strings.ReplaceAll(users, "IDENTIFIED WITH mysql_native_password BY", "IDENTIFIED BY")
	root, err := sql.Open("mysql", srv.RootDSN()+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.Exec(users); err != nil {
		t.Fatalf("applying the captured SQL: %v\n%s", err, users)
	}
	for _, u := range [][2]string{{"MYSQL_APP_USER", "MYSQL_APP_PASSWORD"}, {"MYSQL_CDC_USER", "MYSQL_CDC_PASSWORD"}, {"MYSQL_READER_USER", "MYSQL_READER_PASSWORD"}} {
		db, err := sql.Open("mysql", srv.DSN(env[u[0]], env[u[1]], ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(); err != nil {
			t.Errorf("%s cannot log in with its password %q: %v", env[u[0]], env[u[1]], err)
		}
		db.Close()
	}
}
