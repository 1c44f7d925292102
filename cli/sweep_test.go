package cli

import (
	"reflect"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// The variants are the cross product of the swept lists, in the order
// given; a value without a comma is the same in every variant.
func TestSweepVariants(t *testing.T) {
	got, err := sweepVariants([]schemas.VarArg{
		{Name: "payment_delay", Value: "5s,45s"},
		{Name: "lakes", Value: "false"},
		{Name: "order_rate", Value: "5, 50"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range got {
		names = append(names, v.name)
	}
	want := []string{"payment_delay-5s_order_rate-5", "payment_delay-5s_order_rate-50", "payment_delay-45s_order_rate-5", "payment_delay-45s_order_rate-50"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("variants %q, want %q", names, want)
	}
	if v := got[3].vars; len(v) != 3 || v[1] != (schemas.VarArg{Name: "lakes", Value: "false"}) || v[2].Value != "50" {
		t.Errorf("the last variant's variables: %+v", v)
	}
	for _, bad := range [][]schemas.VarArg{{{Name: "lakes", Value: "false"}}, {{Name: "x", Value: "1,,2"}}} {
		if _, err := sweepVariants(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
