package render

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

func TestSettingsSetWithoutYAML(t *testing.T) {
	s := Settings{{Key: "a", Value: 1, Why: "A."}, {Key: "b", Value: "x", Why: "A."}, {Key: "c", Value: false, Why: "C."}}
	o := s.Set("b", "y", "N.").Set("d", 2, "N.")
	if v, _ := s.Value("b"); v != "x" {
		t.Errorf("Set changed its receiver: b is %v", v)
	}
	if got, want := string(o.YAML()), "\n# A.\na: 1\nb: y\n\n# C.\nc: false\n\n# N.\nd: 2\n"; got != want {
		t.Errorf("YAML:\n%q\nwant\n%q", got, want)
	}
	if got, want := string(o.Without("a", "c").Properties()), "\n# A.\nb=y\n\n# N.\nd=2\n"; got != want {
		t.Errorf("Properties:\n%q\nwant\n%q", got, want)
	}
	if got := kafkaEnvName("a.b_c-d"); got != "KAFKA_A_B__C___D" {
		t.Errorf("kafkaEnvName: %s", got)
	}
}

// TestComposeWritesTheSettings: compose's files and variables are the
// engines' settings as they are (the other faces override on the same
// data; see runtime/native and render/kube).
func TestComposeWritesTheSettings(t *testing.T) {
	l := loadSeed(t, nil)
	files := renderSeed(t, nil)
	if conf := string(files["flink/config.yaml"]); !strings.HasSuffix(conf, string(FlinkSettings(l).YAML())) {
		t.Errorf("flink/config.yaml is not FlinkSettings:\n%s", conf)
	}
	for _, name := range []string{"coordinator-server", "tablet-server"} {
		if got := flussService(l, name).Environment["FLUSS_PROPERTIES"]; got == nil || *got != string(FlussSettings(l, name).YAML()) {
			t.Errorf("%s: FLUSS_PROPERTIES is not FlussSettings", name)
		}
	}
	env := kafkaService(l).Environment
	for _, x := range KafkaSettings(l) {
		if got := env[kafkaEnvName(x.Key)]; got == nil || *got != x.Text() {
			t.Errorf("kafka: %s is not %s=%v", kafkaEnvName(x.Key), x.Key, x.Value)
		}
	}
}

// TestStateBackend: the flink block's state_backend reaches Flink's
// configuration with what RocksDB needs besides its name.
func TestStateBackend(t *testing.T) {
	for _, c := range []struct {
		backend, incremental, fraction string
	}{
		{"hashmap", "", "0.2"},
		{"rocksdb", "true", "0.4"},
	} {
		l := loadSeed(t, []schemas.VarArg{{Name: "state_backend", Value: c.backend}})
		m := FlinkSettings(l).Map()
		if m["state.backend.type"] != c.backend || m["state.backend.incremental"] != c.incremental ||
			m["taskmanager.memory.managed.fraction"] != c.fraction {
			t.Errorf("%s: state.backend.type %q, incremental %q, managed fraction %q; want %s, %q, %s", c.backend,
				m["state.backend.type"], m["state.backend.incremental"], m["taskmanager.memory.managed.fraction"], c.backend, c.incremental, c.fraction)
		}
		files, err := Render(l, Options{LabgenVersion: "test", NoSource: true})
		if err != nil {
			t.Fatal(err)
		}
		if conf := string(files["flink/config.yaml"]); !strings.Contains(conf, "\nstate.backend.type: "+c.backend+"\n") {
			t.Errorf("%s: compose's flink/config.yaml does not say it", c.backend)
		}
	}
}
