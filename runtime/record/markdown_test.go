package record

import (
	"strings"
	"testing"
)

// A Kafka message's value is shown whole in record.md (the field that
// changes between versions is late in it); other cells stay bounded.
func TestKafkaValueNotCut(t *testing.T) {
	value := `{"order_id":489,"customer_id":3904,"category":"electronics","order_amount":56.15,"order_status":"CREATED","payment_status":"PENDING","paid_at":null,"created_at":"2026-12-01 01:55:18.89","updated_at":"2026-12-01 01:55:18.89"}`
	huge := `{"blob":"` + strings.Repeat("x", KafkaMaxCell+100) + `"}`
	long := strings.Repeat("y", 300)
	r := sample()
	r.Experiments[0].Steps = []*Step{
		{Name: "kafka", Kind: "kafka", Status: StatusOK, Ran: &Ran{What: "kafka"},
			Output: &Output{Tables: []Table{{Columns: []string{"partition", "offset", "timestamp", "key", "value"}, Rows: [][]string{
				{"0", "1054", "2026-12-01 01:55:18.919", `{"order_id":489}`, value},
				{"0", "1055", "2026-12-01 01:55:19.000", `{"order_id":489}`, huge},
			}}}}},
		{Name: "query", Kind: "query", Status: StatusOK, Ran: &Ran{What: "mysql"},
			Output: &Output{Tables: []Table{{Columns: []string{"note"}, Rows: [][]string{{long}}}}}},
	}
	md := string(Markdown(r))
	if !strings.Contains(md, "| "+value+" ") {
		t.Errorf("the Kafka value is cut:\n%s", md)
	}
	if !strings.Contains(md, "… (111 more characters; record.json keeps the whole value)") {
		t.Error("a Kafka value past the bound is not cut, or does not say how much was cut")
	}
	if strings.Contains(md, long) || !strings.Contains(md, strings.Repeat("y", DefaultMaxCell)+"…") {
		t.Error("a query's cell is no longer cut at MaxCell")
	}
}
