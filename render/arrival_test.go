package render

import (
	"strings"
	"testing"
)

// TestClickHouseArrival checks that a serving table's arrival column is
// the table's last column, filled by ClickHouse: the Kafka table and the
// view that moves its rows leave it out.
func TestClickHouseArrival(t *testing.T) {
	l := loadLab(t, "../labs/orders")
	if l.Table("dwd_order_wide").Store("clickhouse").Arrival == "" {
		t.Fatal("the orders lab's dwd_order_wide declares no arrival column")
	}
	ddl := string(clickhouseSchema(l, ComposeFace))
	for _, want := range []string{
		"    `updated_at` DateTime64(3),\n    `arrived_at` DateTime64(3) DEFAULT now64(3)\n)\nENGINE = ReplacingMergeTree(`updated_at`)",
		"    `updated_at` DateTime64(3)\n)\nENGINE = Kafka",
	} {
		if !strings.Contains(ddl, want) {
			t.Errorf("schema.sql lacks %q:\n%s", want, ddl)
		}
	}
	if strings.Count(ddl, "arrived_at") != 1 {
		t.Errorf("arrived_at outside the serving table:\n%s", ddl)
	}
	// A table without one keeps its columns only.
	if strings.Contains(ddl, "`computed_at` DateTime64(3),\n") {
		t.Errorf("ads_hourly_sales gained a column:\n%s", ddl)
	}
}
