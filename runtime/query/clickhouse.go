package query

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"
)

// ClickHouse exception codes the engine reacts to.
const (
	chUnknownSetting = 115 // UNKNOWN_SETTING
	chTimeout        = 159 // TIMEOUT_EXCEEDED
	chReadonly       = 164 // READONLY: the profile forbids changing settings
)

// ClickHouse protocols (ClickHouseOptions.Protocol).
const (
	ClickHouseNative = "native" // the TCP protocol on tcp_port ("" too)
	ClickHouseHTTP   = "http"   // the HTTP interface on http_port
)

type clickhouseEngine struct {
	conn driver.Conn

	mu       sync.Mutex
	prepared bool
	// What each query may send: readonly=1, and max_execution_time.
	sendReadonly, sendTimeout bool
}

// OpenClickHouse returns an engine on ClickHouse's native protocol or its
// HTTP interface. It does not connect: the first query does, and first
// checks that its queries run read-only (see the package documentation).
func OpenClickHouse(opts ClickHouseOptions) (Engine, error) {
	if opts.Addr == "" {
		return nil, errors.New("ClickHouse: no address")
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 10 * time.Second
	}
	protocol := clickhouse.Native
	var tlsConfig *tls.Config
	switch opts.Protocol {
	case "", ClickHouseNative:
		if opts.Secure {
			return nil, errors.New("ClickHouse: TLS is supported over HTTP only")
		}
	case ClickHouseHTTP:
		protocol = clickhouse.HTTP
		if opts.Secure {
			tlsConfig = &tls.Config{}
		}
	default:
		return nil, fmt.Errorf("ClickHouse: protocol %q: want %q or %q", opts.Protocol, ClickHouseNative, ClickHouseHTTP)
	}
	conn, err := clickhouse.Open(&clickhouse.Options{
		Protocol:        protocol,
		TLS:             tlsConfig,
		Addr:            []string{opts.Addr},
		Auth:            clickhouse.Auth{Database: opts.Database, Username: opts.User, Password: opts.Password},
		DialTimeout:     opts.DialTimeout,
		MaxOpenConns:    4,
		MaxIdleConns:    2,
		ConnMaxLifetime: 10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("ClickHouse: %w", err)
	}
	return &clickhouseEngine{conn: conn}, nil
}

func (e *clickhouseEngine) Name() string { return ClickHouse }

func (e *clickhouseEngine) Close() error { return e.conn.Close() }

// prepare finds, once, which settings the server lets a query carry, and
// checks that queries then run with readonly ≥ 1. A connection failure is
// not remembered, so a server that comes up later is used.
func (e *clickhouseEngine) prepare(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.prepared {
		return nil
	}
	type mode struct{ readonly, timeout bool }
	var refusals []string
	for _, m := range []mode{{true, true}, {true, false}, {false, true}, {false, false}} {
		qctx := clickhouse.Context(ctx, clickhouse.WithSettings(chSettings(m.readonly, m.timeout, time.Minute)))
		level, err := e.readonlyLevel(qctx)
		var ex *clickhouse.Exception
		if errors.As(err, &ex) && (ex.Code == chReadonly || ex.Code == chUnknownSetting) {
			refusals = append(refusals, ex.Message)
			continue
		}
		if err != nil {
			return err
		}
		if level == "0" {
			msg := "the ClickHouse session cannot be made read-only (readonly is 0 and the server refuses readonly=1"
			if len(refusals) > 0 {
				msg += ": " + refusals[0]
			}
			return errors.New(msg + "); connect as a user with a readonly profile")
		}
		e.prepared, e.sendReadonly, e.sendTimeout = true, m.readonly, m.timeout
		return nil
	}
	return errors.New("unreachable")
}

// readonlyLevel asks the server for the readonly setting of a query: from
// system.settings, or with getSetting where a user's grants hide
// system.settings (current ClickHouse; 18.16 has no getSetting).
func (e *clickhouseEngine) readonlyLevel(ctx context.Context) (string, error) {
	var level string
	err := e.conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'readonly'").Scan(&level)
	var ex *clickhouse.Exception
	if err == nil || !errors.As(err, &ex) || ex.Code == chReadonly || ex.Code == chUnknownSetting {
		return level, err
	}
	if err2 := e.conn.QueryRow(ctx, "SELECT toString(getSetting('readonly'))").Scan(&level); err2 != nil {
		return "", fmt.Errorf("cannot tell whether ClickHouse queries run read-only: %w", err)
	}
	return level, nil
}

func chSettings(readonly, timeout bool, d time.Duration) clickhouse.Settings {
	s := clickhouse.Settings{}
	if readonly {
		s["readonly"] = 1
	}
	if timeout {
		s["max_execution_time"] = int(math.Ceil(d.Seconds()))
	}
	return s
}

func (e *clickhouseEngine) Query(ctx context.Context, query string, lim Limits) (res *Result, err error) {
	lim = lim.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	defer func() {
		var ex *clickhouse.Exception
		if err != nil && (pastDeadline(ctx) || errors.As(err, &ex) && ex.Code == chTimeout) {
			err = &timeoutError{limit: lim.Timeout, cause: err}
		}
	}()
	if err := e.prepare(ctx); err != nil {
		return nil, err
	}
	// A child context: cancelling it makes the driver send Cancel, so a
	// truncated query is not read to its end.
	qctx, stop := context.WithCancel(ctx)
	defer stop()
	qctx = clickhouse.Context(qctx, clickhouse.WithSettings(chSettings(e.sendReadonly, e.sendTimeout, lim.Timeout)))

	start := time.Now()
	rows, err := e.conn.Query(qctx, query)
	if err != nil {
		return nil, err
	}
	defer func() {
		stop() // before Close, which would otherwise drain the stream
		rows.Close()
	}()
	cts := rows.ColumnTypes()
	res = &Result{Columns: make([]Column, len(cts)), Rows: [][]any{}}
	dateOnly := make([]bool, len(cts))
	for i, ct := range cts {
		res.Columns[i] = Column{Name: ct.Name(), Type: ct.DatabaseTypeName()}
		dateOnly[i] = strings.Contains(strings.ReplaceAll(ct.DatabaseTypeName(), "DateTime", ""), "Date")
	}
	newDest := func() []any {
		d := make([]any, len(cts))
		for i, ct := range cts {
			d[i] = reflect.New(ct.ScanType()).Interface()
		}
		return d
	}
	precision := make([]int, len(cts))
	for i, ct := range cts {
		precision[i] = dateTime64Precision(ct.DatabaseTypeName())
	}
	convert := func(i int, d any) any {
		v := reflect.ValueOf(d).Elem()
		if p := precision[i]; p >= 0 {
			if t, ok := timeOf(v); ok {
				return fixedTime(t, p)
			}
		}
		return chValue(v, dateOnly[i])
	}
	if err := collect(res, rows, lim, newDest, convert); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

var (
	timeType    = reflect.TypeOf(time.Time{})
	decimalType = reflect.TypeOf(decimal.Decimal{})
	bigIntType  = reflect.TypeOf(big.Int{})
	ipType      = reflect.TypeOf(net.IP{})
)

// chValue converts a value scanned by clickhouse-go into a JSON-friendly one.
func chValue(v reflect.Value, dateOnly bool) any {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil
	}
	switch v.Type() {
	case timeType:
		t := v.Interface().(time.Time)
		return timeText(t, dateOnly && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0)
	case decimalType:
		// With the column's scale, as MySQL prints it: 12.50, not 12.5.
		d := v.Interface().(decimal.Decimal)
		if d.Exponent() < 0 {
			return json.Number(d.StringFixed(-d.Exponent()))
		}
		return json.Number(d.String())
	case bigIntType:
		b := v.Interface().(big.Int)
		return json.Number(b.String())
	case ipType:
		return v.Interface().(net.IP).String()
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Slice && v.Kind() != reflect.Map {
		return s.String() // UUID, IPv4/IPv6 (netip), enums of the driver
	}
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return uintValue(v.Uint())
	case reflect.Float32:
		return floatValue(v.Float(), 32)
	case reflect.Float64:
		return floatValue(v.Float(), 64)
	case reflect.String:
		return bytesValue([]byte(v.String()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return []any{}
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = chValue(v.Index(i), dateOnly)
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			out[fmt.Sprint(chValue(k, dateOnly))] = chValue(v.MapIndex(k), dateOnly)
		}
		return out
	}
	return fmt.Sprint(v.Interface())
}

var dateTime64RE = regexp.MustCompile(`^(?:Nullable\()?DateTime64\((\d+)`)

// dateTime64Precision is the fractional digits of a DateTime64 column, or
// -1 for any other type.
func dateTime64Precision(typ string) int {
	m := dateTime64RE.FindStringSubmatch(typ)
	if m == nil {
		return -1
	}
	p, _ := strconv.Atoi(m[1])
	return p
}

// timeOf unwraps a scanned time, if the value is one.
func timeOf(v reflect.Value) (time.Time, bool) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return time.Time{}, false
		}
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != timeType {
		return time.Time{}, false
	}
	return v.Interface().(time.Time), true
}

// fixedTime prints a DateTime64(p) value with exactly p fractional digits,
// as ClickHouse and MySQL's DATETIME(p) do: 10:00:01.100, not 10:00:01.1,
// so that the same instant reads the same from both engines.
func fixedTime(t time.Time, p int) string {
	if p == 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04:05." + strings.Repeat("0", min(p, 9)))
}
