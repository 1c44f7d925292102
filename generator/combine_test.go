package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// twoUpdates is the seed lab with a second follow-up of each order, a
// "recheck" written to its own table 30 s later on average, that also
// updates the order. With notFilled, the recheck also sets a column of
// orders the producer leaves out of its INSERT (checked_at), so its
// update cannot be applied to an order row before it is written.
func twoUpdates(t *testing.T, notFilled bool) *schemas.Lab {
	t.Helper()
	lab := loadLab(t)
	b, err := schemas.MarshalLab(lab)
	must(t, err)
	var cp schemas.Lab
	must(t, json.Unmarshal(b, &cp))
	tb := *cp.Table("payments")
	tb.Name = "rechecks"
	tb.Stores = []*schemas.Store{{Kind: schemas.StoreMySQL, Database: "shop", Name: tb.Name}}
	lab.Tables = append(lab.Tables, &tb)
	f := cp.Producers[0].Follows[0]
	f.Name, f.Table = "recheck", "rechecks"
	f.Delay = &schemas.Dist{Kind: schemas.DistExponential, Mean: 30, Max: f64(300)}
	f.Outcome = &schemas.Dist{Kind: schemas.DistWeighted, Choices: []schemas.Choice{{Value: "FAILED", Weight: 20}, {Value: "NONE", Weight: 40}, {Value: "PAID", Weight: 40}}}
	if notFilled {
		orders := lab.Table("orders")
		orders.Columns = append(orders.Columns, &schemas.Column{Name: "checked_at", Type: schemas.LogicalType{Kind: schemas.TypeTimestamp, Precision: 3}, Nullable: true})
		f.Update = append(f.Update, &schemas.Field{Name: "checked_at", Dist: &schemas.Dist{Kind: schemas.DistNow}})
	}
	lab.Producers[0].Follows = append(lab.Producers[0].Follows, f)
	return roundTrip(t, lab)
}

// TestCombinedUpdatesMatchSample writes a lab whose orders are updated by
// two follow-ups, on the logical clock with statements of 1, 7 and 1000
// rows: the updates combined with their order's INSERT are applied in
// time order, and the tables hold what --sample prints. When one of the
// updates cannot be combined, none is (an UPDATE runs after the INSERTs,
// so mixing the two could apply an earlier update after a later one).
func TestCombinedUpdatesMatchSample(t *testing.T) {
	srv := testsrv.MariaDB(t)
	for _, notFilled := range []bool{false, true} {
		lab := twoUpdates(t, notFilled)
		plans := compile(t, lab, 42)
		if plans[0].combinable == notFilled {
			t.Fatalf("notFilled=%v: combinable=%v", notFilled, plans[0].combinable)
		}
		const count = 1500
		var b bytes.Buffer
		must(t, Sample(&b, []*Stream{NewStream(plans[0], StreamConfig{Start: epoch, Count: count})}, 1<<30))
		want := expectedTables(t, lab, b.Bytes())
		if len(want["rechecks"]) < count/2 {
			t.Fatalf("the sample has %d rechecks", len(want["rechecks"]))
		}
		// With 1000-row statements the 1500 orders and both their
		// follow-ups are one transaction: every update is combined, two
		// for most orders, in either order. With 1 and 7, transactions of
		// 2 and 17 rows a table mix combined updates and UPDATEs.
		for _, rows := range []int{1, 7, 1000} {
			ldb := newLabDB(t, srv, lab)
			sum, err := Run(ctxTimeout(t, 5*time.Minute), plans, openSink(t, ldb.cfg), Options{Logical: true, Start: epoch, Count: count, BatchRows: rows, Resume: true})
			must(t, err)
			if notFilled && sum.Absorbed != 0 || !notFilled && rows == 1000 && sum.Absorbed == 0 {
				t.Errorf("notFilled=%v, %d rows: %d updates combined", notFilled, rows, sum.Absorbed)
			}
			for _, table := range []string{"orders", "payments", "rechecks"} {
				compareTables(t, fmt.Sprintf("%s (notFilled=%v) written %d rows at a time", table, notFilled, rows), dump(t, ldb.db, table), want[table])
			}
		}
	}
}

// updateRows counts the rows the UPDATE statements of the batches change.
func updateRows(batches [][]string) int64 {
	var n int64
	for _, b := range batches {
		for _, s := range b {
			if strings.HasPrefix(s, "UPDATE ") {
				n += 1 + int64(strings.Count(s, " UNION ALL SELECT "))
			}
		}
	}
	return n
}

// TestCombiningOnlyOnLogicalClock: on the logical clock most of the seed
// lab's order updates are combined with the order's INSERT, and the rest
// (of orders written by an earlier transaction) are sent as UPDATEs; on
// the wall clock every update is an UPDATE, so that CDC sees each order go
// from CREATED to PAID or PAYMENT_FAILED.
func TestCombiningOnlyOnLogicalClock(t *testing.T) {
	const count = 5000
	for _, logical := range []bool{true, false} {
		// Transactions of 1000 orders (400 rows a statement) span 200 s
		// of the logical clock, payments come 45 s after their order on
		// average: about 78% of the updates are combined.
		lab := loadLab(t)
		opts := Options{Logical: true, Count: count, Start: epoch, BatchRows: 400}
		if !logical {
			lab = loadLab(t, "payment_delay=0.05s", "payment_delay_max=0.2s")
			opts = Options{Rate: 20000, Count: count}
		}
		plans := compile(t, lab, 3)
		rec := &recordingSink{}
		sum, err := Run(ctxTimeout(t, time.Minute), plans, rec, opts)
		must(t, err)
		payments := sum.Producers[0].Follows[0].Rows()
		sent := updateRows(rec.batches)
		t.Logf("logical=%v: %d payments, %d updates combined, %d sent as UPDATEs, %d transactions", logical, payments, sum.Absorbed, sent, len(rec.batches))
		if sum.Absorbed+sent != payments {
			t.Errorf("logical=%v: %d updates combined and %d sent, for %d payments", logical, sum.Absorbed, sent, payments)
		}
		if logical && (sum.Absorbed < payments*7/10 || sum.Absorbed > payments*85/100) || !logical && sum.Absorbed != 0 {
			t.Errorf("logical=%v: %d of %d updates combined", logical, sum.Absorbed, payments)
		}
	}
}
