// Package kafkaread reads what a Kafka topic holds, for the runtime's kafka
// steps: every message of one key across all partitions, or the tail of a
// topic. Reads are bounded by a message count and a time limit, never
// commit offsets and never join a consumer group, so they change nothing.
//
// The range to read is fixed when the read starts: the start and end
// offsets of every partition (listed with kadm). Messages written after
// that are not waited for. A tombstone (a message whose value is null, as
// upsert-kafka writes for a deleted or retracted key) is reported as such.
package kafkaread

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Message is one record of a topic.
type Message struct {
	Partition int32
	Offset    int64
	Timestamp time.Time
	Key       []byte
	// Value is nil for a tombstone.
	Value     []byte
	Tombstone bool
}

// Text shows bytes as text: the string when it is UTF-8, else 0x + hex.
func Text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// Result is what a read found.
type Result struct {
	Topic      string
	Partitions int
	// Messages are ordered by timestamp, then partition and offset.
	Messages []Message
	// Matched counts the messages that matched (all for a tail), kept or
	// not; Scanned counts the records read.
	Matched, Scanned int64
	// Truncated is set when more messages matched than Max: the most
	// recent Max are kept.
	Truncated bool
	// TimedOut is set when the time limit ended the read before every
	// partition was read to its end offset; Messages holds what was read.
	TimedOut bool
}

// Options bound a read.
type Options struct {
	// Max is the number of messages kept (default 50).
	Max int
	// Timeout bounds the whole read (default 10 s).
	Timeout time.Duration
	// Opts are extra franz-go client options (e.g. SASL), used by tests.
	Opts []kgo.Opt
}

func (o Options) withDefaults() Options {
	if o.Max <= 0 {
		o.Max = 50
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o
}

// ErrNoTopic is returned when the topic does not exist.
var ErrNoTopic = errors.New("topic does not exist")

// ByKey reads every message of topic whose key is key, in all partitions.
// A key that is JSON matches a message key that is the same JSON value
// written differently (spacing, order of fields, a timestamp with or
// without a zero fraction), since Flink's JSON format and a key written
// from another engine's values need not agree byte for byte.
func ByKey(ctx context.Context, brokers []string, topic string, key []byte, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	match := keyMatcher(key)
	return read(ctx, brokers, topic, 0, opt, match)
}

// Tail reads the last n messages of topic (over all partitions, by
// timestamp).
func Tail(ctx context.Context, brokers []string, topic string, n int, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	if n <= 0 {
		n = 10
	}
	if opt.Max > n {
		opt.Max = n
	}
	return read(ctx, brokers, topic, n, opt, nil)
}

func keyMatcher(key []byte) func([]byte) bool {
	var want any
	isJSON := json.Unmarshal(key, &want) == nil
	want = sameTimestamps(want)
	return func(k []byte) bool {
		if bytes.Equal(k, key) {
			return true
		}
		if !isJSON || len(k) == 0 {
			return false
		}
		var got any
		return json.Unmarshal(k, &got) == nil && reflect.DeepEqual(sameTimestamps(got), want)
	}
}

// sqlTimestamp is a SQL timestamp as the engines write one in JSON and
// in results: Flink's JSON format leaves a zero fraction out
// ("2026-12-07 15:13:10"), ClickHouse writes DateTime64(3) with it
// ("2026-12-07 15:13:10.000"), a key built from one and read in the
// other's topic must still match.
var sqlTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}\.\d+$`)

// sameTimestamps writes every SQL timestamp string in a decoded JSON
// value without the trailing zeros of its fraction.
func sameTimestamps(v any) any {
	switch x := v.(type) {
	case string:
		if sqlTimestamp.MatchString(x) {
			return strings.TrimSuffix(strings.TrimRight(x, "0"), ".")
		}
	case map[string]any:
		for k, e := range x {
			x[k] = sameTimestamps(e)
		}
	case []any:
		for i, e := range x {
			x[i] = sameTimestamps(e)
		}
	}
	return v
}

// read consumes [start, end) of every partition, or the last tail records
// of each when tail > 0.
func read(ctx context.Context, brokers []string, topic string, tail int, opt Options, match func([]byte) bool) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.FetchMaxWait(500 * time.Millisecond),
		kgo.DialTimeout(5 * time.Second), kgo.RequestRetries(2)}, opt.Opts...)
	admCl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(admCl)
	defer adm.Close()

	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, offsetsError(ctx, brokers, topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, offsetsError(ctx, brokers, topic, err)
	}
	res := &Result{Topic: topic}
	from := map[int32]kgo.Offset{}
	until := map[int32]int64{}
	starts.Each(func(s kadm.ListedOffset) {
		res.Partitions++
		e, ok := ends.Lookup(topic, s.Partition)
		if !ok || e.Offset <= s.Offset {
			return
		}
		begin := s.Offset
		if tail > 0 && e.Offset-int64(tail) > begin {
			begin = e.Offset - int64(tail)
		}
		from[s.Partition] = kgo.NewOffset().At(begin)
		until[s.Partition] = e.Offset
	})
	if res.Partitions == 0 {
		return nil, fmt.Errorf("%s: %w", topic, ErrNoTopic)
	}
	if len(from) == 0 {
		return res, nil
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	var kept []Message
	for len(until) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			res.TimedOut = true
			break
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				ferr = err
			}
		})
		if ferr != nil {
			return nil, fmt.Errorf("reading %s: %w", topic, ferr)
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			end, open := until[p.Partition]
			for _, r := range p.Records {
				if !open || r.Offset >= end {
					break
				}
				res.Scanned++
				if match == nil || match(r.Key) {
					res.Matched++
					kept = append(kept, Message{Partition: r.Partition, Offset: r.Offset,
						Timestamp: r.Timestamp.UTC(), Key: r.Key, Value: r.Value, Tombstone: r.Value == nil})
				}
				if r.Offset >= end-1 {
					delete(until, p.Partition)
					open = false
				}
			}
			// A partition whose high watermark the fetch has reached is
			// done even if its last offsets were control records.
			if open && p.HighWatermark >= 0 && len(p.Records) > 0 && p.Records[len(p.Records)-1].Offset+1 >= p.HighWatermark {
				delete(until, p.Partition)
			}
		})
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if !a.Timestamp.Equal(b.Timestamp) {
			return a.Timestamp.Before(b.Timestamp)
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	if len(kept) > opt.Max {
		kept = kept[len(kept)-opt.Max:]
		// A tail keeps the last n by design; a key read lost messages.
		res.Truncated = tail == 0
	}
	res.Messages = kept
	return res, nil
}

func offsetsError(ctx context.Context, brokers []string, topic string, err error) error {
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("%s: %w", topic, ErrNoTopic)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("no answer from Kafka at %v within the time limit: %w", brokers, err)
	}
	return fmt.Errorf("listing the offsets of %s: %w", topic, err)
}

// BrokerVersion is franz-go's guess of the Kafka release the brokers run,
// from the API versions they answer ("v4.1"; Kafka has no request that
// names its release), one per distinct answer.
func BrokerVersion(ctx context.Context, brokers []string) (string, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DialTimeout(5*time.Second), kgo.RequestRetries(2))
	if err != nil {
		return "", err
	}
	adm := kadm.NewClient(cl)
	defer adm.Close()
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range vs.Sorted() {
		if v.Err != nil {
			return "", v.Err
		}
		if g := v.VersionGuess(); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return strings.Join(out, ", "), nil
}
