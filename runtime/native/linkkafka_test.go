package native

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testkafka"
	"github.com/labgen/labgen/internal/testproc"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/linkproxy"
	"github.com/labgen/labgen/schemas"
)

// TestKafkaClickHouseLinkOnARealBroker runs the native broker's own
// server.properties (KafkaProperties, for a lab whose control slows the
// Kafka → ClickHouse link) on a real Kafka 4.1.0, with the link proxy the
// planner wires in front of its ClickHouse listener, and reads through
// the proxy as ClickHouse's consumers do. The broker must advertise the
// proxy on that listener: a client told the broker's own port would
// fetch around the proxy after its first request, and the latency would
// not show. Slowed, every batch comes at least the added latency late
// and whole; restored, at once again.
func TestKafkaClickHouseLinkOnARealBroker(t *testing.T) {
	mode := testproc.Mode(t, "testkafka", "test servers")
	l := seedLab(t)
	l.Controls = append(l.Controls, &schemas.Control{Name: "serving_late",
		Latency: &schemas.Latency{From: "kafka", To: "clickhouse", Add: "20s"}})
	free := freePorts(t, 5)
	p := Ports{Kafka: free[0], KafkaController: free[1], LinkProxyAPI: free[2],
		LinkKafkaClickHouse: free[3], KafkaClickHouse: free[4]}
	lay := Layout{Lab: t.TempDir()}
	lay.State = lay.Lab + "/.native"

	// The proxy as the planner runs it: its --link for this link.
	b := &planner{lab: &labdir.Lab{Lab: l}, ports: p, self: Labgen{Path: "labgen"}}
	svc := b.linkProxy()
	var link linkproxy.Link
	for i, a := range svc.Argv {
		if a == "--link" && strings.HasPrefix(svc.Argv[i+1], schemas.LinkKafkaClickHouse+"=") {
			name, rest, _ := strings.Cut(svc.Argv[i+1], "=")
			listen, upstream, _ := strings.Cut(rest, ">")
			link = linkproxy.Link{Name: name, Listen: listen, Upstream: upstream}
		}
	}
	if link.Name == "" {
		t.Fatalf("the planner's link proxy has no %s link: %q", schemas.LinkKafkaClickHouse, svc.Argv)
	}
	api := "127.0.0.1:" + strconv.Itoa(p.LinkProxyAPI)
	go func() { t.Log(linkproxy.Serve(api, []linkproxy.Link{link})) }()

	props := string(KafkaProperties(l, lay, p))
	direct := "127.0.0.1:" + strconv.Itoa(p.Kafka)
	srv, err := testkafka.StartConfig(context.Background(), direct, func(data string) string {
		// The layout's log directory is the test's: the broker's own.
		return strings.ReplaceAll(props, "log.dirs="+lay.Data("kafka")+"/logs", "log.dirs="+data)
	})
	switch {
	case errors.Is(err, testkafka.ErrMissing):
		testproc.Missing(t, mode, err.Error())
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	producer, err := kgo.NewClient(kgo.SeedBrokers(direct), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	const topic = "link-test"
	if _, err := kadm.NewClient(producer).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}

	// Through the proxy, the broker names the proxy.
	consumer, err := kgo.NewClient(kgo.SeedBrokers(link.Listen), kgo.ConsumeTopics(topic),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	md, err := kadm.NewClient(consumer).BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Brokers) != 1 || net.JoinHostPort(md.Brokers[0].Host, strconv.Itoa(int(md.Brokers[0].Port))) != link.Listen {
		t.Fatalf("through the proxy the broker says it is %v, not the proxy %s", md.Brokers, link.Listen)
	}

	batch := 0
	send := func() {
		batch++
		for i := range 100 {
			r := kgo.StringRecord(fmt.Sprintf("batch %d message %d", batch, i))
			r.Topic = topic
			if err := producer.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// receive takes the batch just sent, whole, and how long it took.
	receive := func() time.Duration {
		start := time.Now()
		got := 0
		for got < 100 {
			fs := consumer.PollFetches(ctx)
			if err := fs.Err(); err != nil {
				t.Fatal(err)
			}
			fs.EachRecord(func(r *kgo.Record) {
				if strings.HasPrefix(string(r.Value), fmt.Sprintf("batch %d ", batch)) {
					got++
				}
			})
		}
		return time.Since(start)
	}
	send()
	if took := receive(); took > 10*time.Second {
		t.Fatalf("the first batch through the proxy took %s", took)
	}
	const add = 1500 * time.Millisecond
	if err := linkproxy.Slow(api, link.Name, add); err != nil {
		t.Fatal(err)
	}
	send()
	if took := receive(); took < add {
		t.Errorf("slowed by %s, a batch came in %s: the fetches went around the proxy", add, took)
	}
	if err := linkproxy.Restore(api, link.Name); err != nil {
		t.Fatal(err)
	}
	send()
	if took := receive(); took > time.Second {
		t.Errorf("restored, a batch took %s", took)
	}
}

// freePorts are n distinct free ports on 127.0.0.1.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	for len(out) < n {
		p, err := proc.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		dup := false
		for _, q := range out {
			dup = dup || q == p
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// A lab whose control slows the Kafka → ClickHouse link: ClickHouse's
// Kafka engine tables bootstrap from the link proxy, Flink still from the
// broker, and the broker has ClickHouse's listener behind the proxy,
// advertised as the proxy. Without such a control nothing changes.
func TestKafkaClickHouseLinkFace(t *testing.T) {
	l := seedLab(t)
	lab := &labdir.Lab{Lab: l, Dir: t.TempDir()}
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		t.Fatal(err)
	}
	plain := FaceOf(lab, lay)
	if plain.KafkaClickHouse != "" || PortsOf(lab).KafkaClickHouse != 0 {
		t.Fatalf("no control slows the link, yet ClickHouse reads Kafka at %q", plain.KafkaClickHouse)
	}
	l.Controls = append(l.Controls, &schemas.Control{Name: "serving_late",
		Latency: &schemas.Latency{From: "kafka", To: "clickhouse", Add: "20s"}})
	p := PortsOf(lab)
	f := FaceOf(lab, lay)
	proxy := fmt.Sprintf("127.0.0.1:%d", p.LinkKafkaClickHouse)
	if f.KafkaClickHouse != proxy || f.Kafka != plain.Kafka || f.MySQL != plain.MySQL {
		t.Errorf("face: ClickHouse's Kafka %q (want %s), Flink's %q (want %q), MySQL %q (want %q)", f.KafkaClickHouse, proxy, f.Kafka, plain.Kafka, f.MySQL, plain.MySQL)
	}
	files, err := render.FaceFiles(l, f)
	if err != nil {
		t.Fatal(err)
	}
	ddl := string(files["sql/clickhouse/schema.sql"])
	if !strings.Contains(ddl, "kafka_broker_list = '"+proxy+"'") || strings.Contains(ddl, "kafka_broker_list = '"+plain.Kafka+"'") {
		t.Errorf("ClickHouse's Kafka tables do not all read through the proxy:\n%s", ddl)
	}
	for _, fl := range files.Paths() {
		if strings.HasPrefix(fl, "sql/flink/") && strings.Contains(string(files[fl]), proxy) {
			t.Errorf("%s reaches Kafka through ClickHouse's link", fl)
		}
	}
	props := string(KafkaProperties(l, lay, p))
	for _, want := range []string{
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d,CLICKHOUSE://127.0.0.1:%d\n", p.Kafka, p.KafkaController, p.KafkaClickHouse),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d,CLICKHOUSE://%s\n", p.Kafka, proxy),
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,CLICKHOUSE:PLAINTEXT\n",
	} {
		if !strings.Contains(props, want) {
			t.Errorf("server.properties lacks %q", want)
		}
	}
}
