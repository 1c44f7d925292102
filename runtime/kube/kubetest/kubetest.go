// Package kubetest stands in for kubectl port-forward in tests.
//
// It is a stand-in because there are no kubelets here: the tests' API
// server (internal/kubecheck) runs no nodes, so no pod runs and a real
// kubectl port-forward cannot succeed. The test binary itself plays
// kubectl: started with the environment variable set, it listens where
// port-forward would, accepts connections and closes them, and records
// its process in the directory the variable names, until it is killed.
package kubetest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const envVar = "LABGEN_KUBECTL_STANDIN"

// Main runs the tests, or plays kubectl when the test binary was started
// as the stand-in. A test package that uses StandIn calls it from
// TestMain.
func Main(m *testing.M) {
	if dir := os.Getenv(envVar); dir != "" {
		os.Exit(standIn(dir, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// StandIn makes the test binary the kubectl of the test: it returns its
// path, for Kubectl.Bin or --kubectl, and the directory where each
// started stand-in leaves a file named after its pid, holding its
// arguments.
//
// A target whose name holds "missing" fails as kubectl does for a
// Service that does not exist; one holding "flaky" ends at its second
// connection (the first is labgen's readiness probe), as a port-forward
// does when its pod goes away.
func StandIn(t testing.TB) (bin, dir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	t.Setenv(envVar, dir)
	return exe, dir
}

// Started are the stand-ins started so far: pid → arguments.
func Started(t testing.TB, dir string) map[int]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[pid] = string(b)
	}
	return out
}

// Alive tells whether a process runs (a zombie, not yet waited for by
// its parent, counts as running: nobody reaped it).
func Alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// AwaitGone waits a little for the stand-ins to be gone and reports the
// ones that are not.
func AwaitGone(t testing.TB, dir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []string
		for pid, args := range Started(t, dir) {
			if Alive(pid) {
				alive = append(alive, fmt.Sprintf("%d (%s)", pid, args))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("stand-in kubectl processes left running: %s", strings.Join(alive, ", "))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// standIn plays kubectl port-forward [-n NS] TARGET LOCAL:REMOTE
// [--address ADDR].
func standIn(dir string, args []string) int {
	var target, ports string
	addr := "127.0.0.1"
	forward := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "port-forward":
			forward = true
		case a == "-n" || a == "--namespace" || a == "--address":
			if i+1 < len(args) && a == "--address" {
				addr = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "-"):
		case target == "":
			target = a
		default:
			ports = a
		}
	}
	if !forward {
		fmt.Fprintf(os.Stderr, "kubectl stand-in: only port-forward is played here, not %q\n", strings.Join(args, " "))
		return 1
	}
	_ = os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), []byte(strings.Join(args, " ")), 0o644)
	if strings.Contains(target, "missing") {
		name := target[strings.Index(target, "/")+1:]
		fmt.Fprintf(os.Stderr, "error: services %q not found\n", name)
		return 1
	}
	local, remote, _ := strings.Cut(ports, ":")
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, local))
	if err != nil {
		fmt.Fprintf(os.Stderr, "Unable to listen on port %s: %v\nerror: unable to listen on any of the requested ports\n", local, err)
		return 1
	}
	fmt.Printf("Forwarding from %s:%s -> %s\n", addr, local, remote)
	for n := 1; ; n++ {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		c.Close()
		if strings.Contains(target, "flaky") && n == 2 {
			fmt.Fprintf(os.Stderr, "error: lost connection to pod\n")
			return 1
		}
	}
}
