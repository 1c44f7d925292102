package testkafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestMain(m *testing.M) { Main(m) }

// TestKeyedMessagesAndTombstone produces keyed JSON messages and a tombstone
// (a null value, as Flink's upsert-kafka writes for a deleted key) and reads
// them back in order through a consumer group.
func TestKeyedMessagesAndTombstone(t *testing.T) {
	addr := Broker(t)
	topic := Topic(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	sent := []*kgo.Record{
		{Key: []byte(`{"order_id":1}`), Value: []byte(`{"order_id":1,"payment_status":"PENDING"}`)},
		{Key: []byte(`{"order_id":2}`), Value: []byte(`{"order_id":2,"payment_status":"PENDING"}`)},
		{Key: []byte(`{"order_id":1}`), Value: nil}, // tombstone
		{Key: []byte(`{"order_id":1}`), Value: []byte(`{"order_id":1,"payment_status":"PAID"}`)},
	}
	if err := prod.ProduceSync(ctx, sent...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	cons, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.ConsumeTopics(topic),
		kgo.ConsumerGroup(topic+"-group"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got []*kgo.Record
	for len(got) < len(sent) {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d messages: %v", len(got), len(sent), err)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		got = append(got, fs.Records()...)
	}
	if len(got) != len(sent) {
		t.Fatalf("consumed %d messages, want %d", len(got), len(sent))
	}
	for i, r := range got {
		w := sent[i]
		if string(r.Key) != string(w.Key) || string(r.Value) != string(w.Value) || (r.Value == nil) != (w.Value == nil) {
			t.Errorf("message %d: key %s value %q (nil %v), want key %s value %q (nil %v)",
				i, r.Key, r.Value, r.Value == nil, w.Key, w.Value, w.Value == nil)
		}
		if r.Offset != int64(i) {
			t.Errorf("message %d: offset %d", i, r.Offset)
		}
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}

	// The group coordinator kept the committed offset.
	adm := kadm.NewClient(prod)
	offs, err := adm.FetchOffsets(ctx, topic+"-group")
	if err != nil {
		t.Fatalf("fetch offsets: %v", err)
	}
	if o, ok := offs.Lookup(topic, 0); !ok || o.At != int64(len(sent)) {
		t.Errorf("committed offset %+v (found %v), want %d", o, ok, len(sent))
	}
}

// TestBrokerVersion checks that the broker is the pinned release: the
// lab's image and this broker must speak the same protocol versions.
func TestBrokerVersion(t *testing.T) {
	addr := Broker(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	vs, err := kadm.NewClient(cl).ApiVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Err != nil {
			t.Fatalf("api versions from node %d: %v", v.NodeID, v.Err)
		}
		// kversion guesses the release from the supported request versions.
		if guess := v.VersionGuess(); !strings.Contains(guess, "v4.1") {
			t.Errorf("node %d looks like %s, want Kafka %s", v.NodeID, guess, Version)
		}
	}
}

func TestTopicNames(t *testing.T) {
	a, b := topicName(t), topicName(t)
	if a == b || !strings.HasPrefix(a, "t-testtopicnames-") {
		t.Errorf("topicName: %q, %q", a, b)
	}
}

// TestClusterIDNeverLooksLikeAnOption draws many IDs: one starting with
// '-' made kafka-storage format fail.
func TestClusterIDNeverLooksLikeAnOption(t *testing.T) {
	for i := 0; i < 5000; i++ {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(id, "-") || len(id) != 22 {
			t.Fatalf("cluster ID %q", id)
		}
	}
}
