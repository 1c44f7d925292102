package schemas

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestStoreUseJSON: lab.json keeps a use as "kind:table", as before it was
// typed, and reads it back; anything else is refused.
func TestStoreUseJSON(t *testing.T) {
	in := []StoreUse{{StoreFluss, "orders"}, {StoreMySQL, "readings"}, {UseMissing, "payments"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["fluss:orders","mysql:readings","missing:payments"]`; string(b) != want {
		t.Errorf("marshalled %s, want %s", b, want)
	}
	var out []StoreUse
	if err := json.Unmarshal(b, &out); err != nil || !reflect.DeepEqual(in, out) {
		t.Errorf("read back %v (%v), want %v", out, err, in)
	}
	for _, bad := range []string{`["mysql"]`, `[":x"]`, `["mysql:"]`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
