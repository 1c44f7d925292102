package hostinfo

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestHost(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := Files{
		MemInfo:   write("meminfo", "MemTotal:       24570000 kB\nMemFree:         1000 kB\n"),
		OSRelease: write("os-release", "NAME=\"Debian GNU/Linux\"\nVERSION=\"13 (trixie)\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n"),
		Kernel:    write("osrelease", "6.12.57+deb13-amd64\n"),
	}
	h := Host(f)
	if h.Cores != runtime.NumCPU() || h.Arch != runtime.GOARCH || h.MemoryBytes != 24570000*1024 ||
		h.OS != "Debian GNU/Linux 13 (trixie)" || h.Kernel != "6.12.57+deb13-amd64" {
		t.Errorf("host %+v", h)
	}
	if got, want := h.Text(), "2 cores"; runtime.NumCPU() == 2 && got[:len(want)] != want {
		t.Errorf("text %q", got)
	}
	// Nothing readable: the cores and the architecture still.
	h = Host(Files{MemInfo: filepath.Join(dir, "none"), OSRelease: filepath.Join(dir, "none"), Kernel: filepath.Join(dir, "none")})
	if h.Cores == 0 || h.Arch == "" || h.MemoryBytes != 0 || h.OS != "" {
		t.Errorf("unreadable files: %+v", h)
	}
	// This machine's own files parse.
	if h := Host(Linux); runtime.GOOS == "linux" && (h.MemoryBytes == 0 || h.Kernel == "") {
		t.Errorf("this machine: %+v", h)
	}
}

func TestWhere(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "local (no CI variable set)"},
		{[]string{"CI=false"}, "local (no CI variable set)"},
		{[]string{"CI=true"}, "CI (CI=true)"},
		{[]string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=labgen/labgen", "GITHUB_RUN_ID=42"},
			"CI: GitHub Actions, run https://github.com/labgen/labgen/actions/runs/42"},
		{[]string{"GITLAB_CI=true", "CI_JOB_URL=https://gitlab.example/j/7"}, "CI: GitLab CI, run https://gitlab.example/j/7"},
		{[]string{"JENKINS_URL=http://j", "BUILD_ID=9"}, "CI: Jenkins, run 9"},
		{[]string{"BUILDKITE=true"}, "CI: Buildkite"},
	} {
		if got := Where(c.env); got != c.want {
			t.Errorf("Where(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}
