package kafkaread

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/labgen/labgen/internal/testkafka"
)

func TestMain(m *testing.M) { testkafka.Main(m) }

// TestRealBroker reads a key across partitions, tombstone included, and a
// tail from a real Apache Kafka broker (the lab's version, KRaft).
func TestRealBroker(t *testing.T) {
	addr := testkafka.Broker(t)
	topic := testkafka.Topic(t, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i, v := range []string{`{"s":"PENDING"}`, "", `{"s":"PAID"}`} {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i), Key: []byte(`{"order_id":5}`),
			Timestamp: t0.Add(time.Duration(i) * time.Second), Value: nilIfEmpty(v)})
	}
	for i := 0; i < 6; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprintf(`{"order_id":%d}`, 100+i)),
			Timestamp: t0.Add(time.Duration(10+i) * time.Second), Value: []byte("x")})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	res, err := ByKey(ctx, []string{addr}, topic, []byte(`{"order_id": 5}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 3 || res.Scanned != 9 || !res.Messages[1].Tombstone || res.Messages[1].Value != nil ||
		res.Messages[2].Partition != 2 || string(res.Messages[2].Value) != `{"s":"PAID"}` {
		t.Fatalf("by key: %+v", res)
	}
	res, err = Tail(ctx, []string{addr}, topic, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 || string(res.Messages[1].Key) != `{"order_id":105}` {
		t.Fatalf("tail: %+v", res.Messages)
	}
}

func nilIfEmpty(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// TestBrokerVersion guesses the release of the real broker (Kafka 4.1,
// the lab's) from its API versions.
func TestBrokerVersion(t *testing.T) {
	addr := testkafka.Broker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := BrokerVersion(ctx, []string{addr})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "v4.") {
		t.Errorf("BrokerVersion = %q, want a 4.x guess for the lab's Kafka 4.1.0", v)
	}
	t.Logf("the real broker: %s", v)
}
