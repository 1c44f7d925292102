package kafkaread

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// cluster starts an in-process Kafka (kfake speaks the real protocol) with
// topic "wide" of 3 partitions.
func cluster(t *testing.T) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "wide"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// produce writes records synchronously, each to the partition given.
func produce(t *testing.T, brokers []string, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func rec(p int32, sec int, key, value string) *kgo.Record {
	r := &kgo.Record{Topic: "wide", Partition: p, Timestamp: t0.Add(time.Duration(sec) * time.Second), Key: []byte(key)}
	if value != "" {
		r.Value = []byte(value)
	}
	return r
}

func TestByKeyAcrossPartitions(t *testing.T) {
	brokers := cluster(t)
	produce(t, brokers,
		rec(0, 1, `{"order_id":7}`, `{"order_id":7,"payment_status":"PENDING"}`),
		rec(1, 2, `{"order_id":8}`, `{"order_id":8}`),
		rec(0, 3, `{"order_id":7}`, ""), // tombstone: the retraction
		rec(2, 4, `{ "order_id": 7 }`, `{"order_id":7,"payment_status":"PAID"}`),
		rec(0, 5, `{"order_id":70}`, `{"order_id":70}`),
	)
	res, err := ByKey(context.Background(), brokers, "wide", []byte(`{"order_id":7}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partitions != 3 || res.Scanned != 5 || res.Matched != 3 || res.Truncated || res.TimedOut {
		t.Fatalf("result: %+v", res)
	}
	got := ""
	for _, m := range res.Messages {
		got += fmt.Sprintf("%d/%d %s tomb=%v %s|", m.Partition, m.Offset, m.Timestamp.Format("15:04:05"), m.Tombstone, m.Value)
	}
	want := `0/0 10:00:01 tomb=false {"order_id":7,"payment_status":"PENDING"}|0/1 10:00:03 tomb=true |2/0 10:00:04 tomb=false {"order_id":7,"payment_status":"PAID"}|`
	if got != want {
		t.Fatalf("messages:\n got %s\nwant %s", got, want)
	}
}

func TestByKeyBoundedByCount(t *testing.T) {
	brokers := cluster(t)
	var recs []*kgo.Record
	for i := 0; i < 7; i++ {
		recs = append(recs, rec(int32(i%3), i, "k", fmt.Sprint("v", i)))
	}
	produce(t, brokers, recs...)
	res, err := ByKey(context.Background(), brokers, "wide", []byte("k"), Options{Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Matched != 7 || len(res.Messages) != 3 || string(res.Messages[0].Value) != "v4" {
		t.Fatalf("result: %+v", res)
	}
}

func TestTail(t *testing.T) {
	brokers := cluster(t)
	var recs []*kgo.Record
	for i := 0; i < 9; i++ {
		recs = append(recs, rec(int32(i%3), i, fmt.Sprint("k", i), fmt.Sprint("v", i)))
	}
	produce(t, brokers, recs...)
	res, err := Tail(context.Background(), brokers, "wide", 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, m := range res.Messages {
		vals = append(vals, string(m.Value))
	}
	if fmt.Sprint(vals) != "[v5 v6 v7 v8]" || res.Truncated {
		t.Fatalf("tail: %v (%+v)", vals, res)
	}
}

func TestEmptyAndMissingTopic(t *testing.T) {
	brokers := cluster(t)
	res, err := Tail(context.Background(), brokers, "wide", 5, Options{})
	if err != nil || len(res.Messages) != 0 || res.Partitions != 3 {
		t.Fatalf("empty topic: %+v, %v", res, err)
	}
	_, err = ByKey(context.Background(), brokers, "nope", []byte("k"), Options{Timeout: 3 * time.Second})
	if !errors.Is(err, ErrNoTopic) {
		t.Fatalf("missing topic: %v", err)
	}
}

func TestUnreachableBroker(t *testing.T) {
	start := time.Now()
	_, err := Tail(context.Background(), []string{"127.0.0.1:1"}, "wide", 5, Options{Timeout: 2 * time.Second})
	if err == nil {
		t.Fatal("no error from a broker that is not there")
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %s despite the 2 s limit", time.Since(start))
	}
}

func TestText(t *testing.T) {
	if Text([]byte("héllo")) != "héllo" || Text([]byte{0xff, 0x00}) != "0xff00" {
		t.Fatal(Text([]byte{0xff, 0x00}))
	}
}

// A key built from ClickHouse's values (DateTime64(3) with its zero
// fraction) matches the key Flink's JSON format wrote (without it); other
// times and other strings do not.
func TestKeyMatcherTimestamps(t *testing.T) {
	match := keyMatcher([]byte(`{"device_id":12,"window_start":"2026-12-07 15:13:10.000"}`))
	for key, want := range map[string]bool{
		`{"device_id":12,"window_start":"2026-12-07 15:13:10"}`:     true,
		`{"window_start":"2026-12-07 15:13:10.0","device_id":12}`:   true,
		`{"device_id":12,"window_start":"2026-12-07 15:13:10.500"}`: false,
		`{"device_id":12,"window_start":"2026-12-07 15:13:20"}`:     false,
		`{"device_id":13,"window_start":"2026-12-07 15:13:10"}`:     false,
	} {
		if got := match([]byte(key)); got != want {
			t.Errorf("%s: matched %v, want %v", key, got, want)
		}
	}
	half := keyMatcher([]byte(`{"at":"2026-12-07 15:13:10.500"}`))
	if !half([]byte(`{"at":"2026-12-07 15:13:10.5"}`)) || half([]byte(`{"at":"2026-12-07 15:13:10.05"}`)) {
		t.Error("a fraction's trailing zeros are not told apart from its digits")
	}
	if keyMatcher([]byte(`{"note":"10.000"}`))([]byte(`{"note":"10"}`)) {
		t.Error("a string that is no timestamp was changed")
	}
}
