package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarehouseFile: the native stack's lake files are looked for in
// OUT/.native/warehouse, down into Iceberg's partition directories.
func TestWarehouseFile(t *testing.T) {
	lay, err := NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{lay: lay}
	if _, err := c.WarehouseFile(context.Background(), "iceberg/lab/wide/data", "*.parquet"); err == nil || !strings.Contains(err.Error(), "no *.parquet file under .native/warehouse/iceberg/lab/wide/data") {
		t.Errorf("empty warehouse: %v", err)
	}
	file := filepath.Join(lay.Warehouse(), "iceberg/lab/wide/data/day=1/00000-0.parquet")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := c.WarehouseFile(context.Background(), "iceberg/lab/wide/data", "*.parquet")
	if err != nil || got != ".native/warehouse/iceberg/lab/wide/data/day=1/00000-0.parquet" {
		t.Errorf("WarehouseFile = %q, %v", got, err)
	}
}
