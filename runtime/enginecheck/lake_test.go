package enginecheck

import "testing"

// TestMissingLakeObject: the three ways Flink 1.20 says a Fluss table or
// database is not there yet (seen on a fresh native stack) leave a job
// unchecked; an unknown column or function does not.
func TestMissingLakeObject(t *testing.T) {
	for msg, want := range map[string]bool{
		"org.apache.calcite.runtime.CalciteContextException: From line 3, column 6 to line 3, column 40: Object 'lab' not found within 'fluss_catalog'":                                                                  true,
		"org.apache.flink.table.catalog.exceptions.DatabaseNotExistException: Database lab does not exist in Catalog fluss_catalog.":                                                                                     true,
		"org.apache.flink.table.api.ValidationException: Cannot find table '`fluss_catalog`.`lab`.`dwd_order_wide`' in any of the catalogs [iceberg_catalog, default_catalog, fluss_catalog], nor as a temporary table.": true,
		"org.apache.calcite.runtime.CalciteContextException: From line 2, column 8 to line 2, column 12: Column 'amout' not found in any table":                                                                          false,
		"No match found for function signature NO_SUCH_FN(<NUMERIC>)":                                                                                                                                                    false,
		"Cannot find table '`default_catalog`.`default_database`.`x`' in any of the catalogs":                                                                                                                            false,
	} {
		if got := missingLakeObject(msg); got != want {
			t.Errorf("missingLakeObject(%q) = %v, want %v", msg, got, want)
		}
	}
}
