package schemas

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"pick", "latest", "wait_for_join", "Order_ID"}
	for _, c := range []struct{ name, want string }{
		{"pik", "pick"},                    // one edit
		{"pock", "pick"},                   // one substitution
		{"wait_for_jion", "wait_for_join"}, // two edits
		{"order_id", "Order_ID"},           // case only, before any edit distance
		{"lastest", "latest"},
		{"nothing_like_it", ""},
		{"", ""},
	} {
		if got := closest(c.name, names); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := didYouMean("pik", names); got != " Did you mean pick?" {
		t.Errorf("didYouMean: %q", got)
	}
}
