package kube_test

import (
	"context"
	"net"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labgen/labgen/render"
	rkube "github.com/labgen/labgen/render/kube"
	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/kube/kubetest"
	"github.com/labgen/labgen/schemas"
)

// The port-forward tests play kubectl with the test binary (kubetest):
// the tests' API server has no nodes, so no real port-forward can work.
func TestMain(m *testing.M) { kubetest.Main(m) }

func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// A forward listens on a free local port, answers once kubectl listens,
// and is gone, kubectl with it, after Close.
func TestForwardLifecycle(t *testing.T) {
	bin, dir := kubetest.StandIn(t)
	k := kube.Kubectl{Bin: bin}
	ctx := context.Background()
	f, err := kube.StartForward(ctx, k, "labgen-orders", "svc/mysql", 3306, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Local == 0 || f.Addr() != "127.0.0.1:"+strconv.Itoa(f.Local) {
		t.Errorf("local address %s", f.Addr())
	}
	if err := f.Ready(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if !answers(f.Addr()) {
		t.Errorf("%s does not answer after Ready", f.Addr())
	}
	started := kubetest.Started(t, dir)
	if len(started) != 1 {
		t.Fatalf("started %v", started)
	}
	for _, args := range started {
		if want := "port-forward -n labgen-orders svc/mysql " + strconv.Itoa(f.Local) + ":3306 --address 127.0.0.1"; args != want {
			t.Errorf("kubectl %s; want kubectl %s", args, want)
		}
	}
	f.Close()
	f.Close() // twice is fine
	if answers(f.Addr()) {
		t.Errorf("%s still answers after Close", f.Addr())
	}
	kubetest.AwaitGone(t, dir)
}

// kubectl's own message says why a forward did not come up; a fixed
// local port that is taken is refused before kubectl starts.
func TestForwardFails(t *testing.T) {
	bin, dir := kubetest.StandIn(t)
	k := kube.Kubectl{Bin: bin}
	ctx := context.Background()
	f, err := kube.StartForward(ctx, k, "ns", "svc/missing", 80, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Ready(ctx, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), `services "missing" not found`) {
		t.Errorf("Ready: %v", err)
	}
	f.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	if _, err := kube.StartForward(ctx, k, "ns", "pod/kafka-dual-role-0", 9094, taken); err == nil || !strings.Contains(err.Error(), "is taken") {
		t.Errorf("a taken local port: %v", err)
	}
	kubetest.AwaitGone(t, dir)
}

// A forward whose kubectl ends after it was ready (its pod went away)
// is started again on the same port; ending the context ends kubectl.
func TestForwardRestarts(t *testing.T) {
	bin, dir := kubetest.StandIn(t)
	k := kube.Kubectl{Bin: bin}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := kube.StartForward(ctx, k, "ns", "svc/flaky", 8081, 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []string
	f.OnRestart = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, s)
	}
	if err := f.Ready(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	answers(f.Addr()) // the stand-in ends at this connection
	deadline := time.Now().Add(10 * time.Second)
	for f.Restarts() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if f.Restarts() == 0 {
		t.Fatal("not started again")
	}
	for !answers(f.Addr()) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	if len(heard) != 1 || !strings.Contains(heard[0], "lost connection to pod") {
		t.Errorf("OnRestart heard %q", heard)
	}
	mu.Unlock()
	if n := len(kubetest.Started(t, dir)); n != 2 {
		t.Errorf("%d kubectl processes started, want 2", n)
	}
	cancel()
	kubetest.AwaitGone(t, dir)
	f.Close()
	if err := f.Err(); err == nil {
		t.Error("no error after the context ended")
	}
}

// The base says what to forward to: its Services' ports, the Flink
// clusters by job, the brokers with the ports they advertise.
func TestBaseForwardTargets(t *testing.T) {
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "..", "labs", "orders"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files, err := render.Render(lab, render.Options{LabgenVersion: "test", NoSource: true, Targets: []render.Target{rkube.Target(rkube.Options{Brokers: 3})}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := render.Write(out, files); err != nil {
		t.Fatal(err)
	}
	base, err := kube.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		svc, port string
		want      int
	}{{"mysql", "", 3306}, {"clickhouse", "native", 9000}, {"clickhouse", "http", 8123}, {"sql-gateway", "", 8083}} {
		if got, ok, err := base.ServicePort(c.svc, c.port); err != nil || !ok || got != c.want {
			t.Errorf("ServicePort(%s, %s) = %d, %v, %v; want %d", c.svc, c.port, got, ok, err, c.want)
		}
	}
	if _, ok, _ := base.ServicePort("postgres", ""); ok {
		t.Error("a Service postgres in the MySQL lab")
	}
	fc, err := base.Flink()
	if err != nil {
		t.Fatal(err)
	}
	want := kube.FlinkClusters{Session: "flink", Jobs: map[string]string{"order_wide": "job-order-wide"}, WithJob: []string{"job-order-wide", "tiering"}}
	if !reflect.DeepEqual(fc, want) {
		t.Errorf("Flink() = %+v, want %+v", fc, want)
	}
	brokers, ok, err := base.KafkaBrokers()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	wantB := []kube.Broker{{0, "kafka-dual-role-0", 9094, 19094}, {1, "kafka-dual-role-1", 9094, 19095}, {2, "kafka-dual-role-2", 9094, 19096}}
	if !reflect.DeepEqual(brokers, wantB) {
		t.Errorf("KafkaBrokers() = %+v, want %+v", brokers, wantB)
	}
}
