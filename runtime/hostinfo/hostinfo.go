// Package hostinfo says where a run ran: the machine (cores, memory, OS,
// kernel) and whether it was a CI service or someone's own machine. A
// record's figures (CPU shares, heaps, lags) mean little without them.
package hostinfo

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/labgen/labgen/runtime/record"
)

// Files are what Host reads; tests point them elsewhere.
type Files struct {
	MemInfo, OSRelease, Kernel string
}

// Linux are the files of a Linux machine.
var Linux = Files{MemInfo: "/proc/meminfo", OSRelease: "/etc/os-release", Kernel: "/proc/sys/kernel/osrelease"}

// Host describes this machine. What cannot be read is left empty; the
// cores and the architecture are always known.
func Host(f Files) *record.Host {
	h := &record.Host{Cores: runtime.NumCPU(), Arch: runtime.GOARCH}
	if b, err := os.ReadFile(f.MemInfo); err == nil {
		h.MemoryBytes = memTotal(b)
	}
	if b, err := os.ReadFile(f.OSRelease); err == nil {
		h.OS = prettyName(b)
	}
	if b, err := os.ReadFile(f.Kernel); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	return h
}

// memTotal reads MemTotal (in kB) from /proc/meminfo.
func memTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// prettyName reads PRETTY_NAME (else NAME and VERSION) from os-release.
func prettyName(b []byte) string {
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else {
			v = strings.Trim(v, `'"`)
		}
		vals[k] = v
	}
	if v := vals["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
}

// ciServices are the CI services a run can tell from its environment:
// the variable each sets, its name, and how to name the run (its
// address, else its id).
var ciServices = []struct {
	env, name string
	run       func(get func(string) string) string
}{
	{"GITHUB_ACTIONS", "GitHub Actions", func(get func(string) string) string {
		if get("GITHUB_SERVER_URL") != "" && get("GITHUB_REPOSITORY") != "" && get("GITHUB_RUN_ID") != "" {
			return get("GITHUB_SERVER_URL") + "/" + get("GITHUB_REPOSITORY") + "/actions/runs/" + get("GITHUB_RUN_ID")
		}
		return get("GITHUB_RUN_ID")
	}},
	{"GITLAB_CI", "GitLab CI", func(get func(string) string) string { return first(get("CI_JOB_URL"), get("CI_JOB_ID")) }},
	{"BUILDKITE", "Buildkite", func(get func(string) string) string {
		return first(get("BUILDKITE_BUILD_URL"), get("BUILDKITE_BUILD_ID"))
	}},
	{"CIRCLECI", "CircleCI", func(get func(string) string) string { return first(get("CIRCLE_BUILD_URL"), get("CIRCLE_BUILD_NUM")) }},
	{"JENKINS_URL", "Jenkins", func(get func(string) string) string { return first(get("BUILD_URL"), get("BUILD_ID")) }},
	{"TF_BUILD", "Azure Pipelines", func(get func(string) string) string { return get("BUILD_BUILDID") }},
}

// Where says whether the environment is a CI service's ("CI: GitHub
// Actions, run https://…") or not ("local: no CI variable set"). A bare
// CI=true, which most services and the project's own .ci/run set, is CI
// without a name.
func Where(environ []string) string {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	get := func(k string) string { return env[k] }
	for _, s := range ciServices {
		if get(s.env) == "" {
			continue
		}
		if run := s.run(get); run != "" {
			return "CI: " + s.name + ", run " + run
		}
		return "CI: " + s.name
	}
	if v := strings.ToLower(get("CI")); v != "" && v != "false" && v != "0" {
		return "CI (CI=" + get("CI") + ")"
	}
	return "local (no CI variable set)"
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
