package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

func TestEndpointsFromLab(t *testing.T) {
	l := writeLab(t, &schemas.Lab{Name: "x", Stack: &schemas.Stack{
		MySQL:      &schemas.MySQL{Database: "shop", Port: 3307},
		ClickHouse: &schemas.ClickHouse{Database: "analytics", TCPPort: 9001},
		Kafka:      &schemas.Kafka{Port: 9093},
		Flink:      &schemas.Flink{UIPort: 8082, GatewayPort: 8084},
	}}, map[string]string{".env": "# secrets\nMYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD='p@ss w'\nexport CLICKHOUSE_READER_USER=\"ro\"\nCLICKHOUSE_READER_PASSWORD=chpw\n"})
	e := DefaultEndpoints(l)
	if e.MySQL != "reader:p@ss w@tcp(127.0.0.1:3307)/shop" {
		t.Errorf("mysql %q", e.MySQL)
	}
	if e.ClickHouse != (query.ClickHouseOptions{Addr: "127.0.0.1:9001", Database: "analytics", User: "ro", Password: "chpw"}) {
		t.Errorf("clickhouse %+v", e.ClickHouse)
	}
	if e.Kafka[0] != "127.0.0.1:9093" || e.Flink != "http://127.0.0.1:8082" || e.Gateway != "http://127.0.0.1:8084" {
		t.Errorf("%+v", e)
	}
	o, err := ParseClickHouse("clickhouse://u:secret@h:1/db", e.ClickHouse)
	if err != nil || o.Addr != "h:1" || o.User != "u" || o.Password != "secret" || o.Database != "db" {
		t.Errorf("%+v %v", o, err)
	}
	if o, _ := ParseClickHouse("h:2", e.ClickHouse); o.Addr != "h:2" || o.User != "ro" {
		t.Errorf("%+v", o)
	}
	if _, err := ParseClickHouse("http://u:secret@h:1", e.ClickHouse); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad URL: %v", err)
	}
	if len(l.Secrets()) != 2 || !strings.HasPrefix(l.Hash(), "sha256:") {
		t.Errorf("secrets %v, hash %s", l.Secrets(), l.Hash())
	}
	os.Remove(filepath.Join(l.Dir, "lab.json"))
	if _, err := LoadLab(l.Dir); err == nil || !strings.Contains(err.Error(), "render the lab first") {
		t.Errorf("missing lab.json: %v", err)
	}
}
