package render

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// shQuote quotes a word for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shWord is s as one sh word: as it is when it needs no quotes.
func shWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") == "" {
		return s
	}
	return shQuote(s)
}

// streamLabData is what templates/stream-lab.sh.tmpl needs of the lab.
type streamLabData struct {
	scriptData
	KafkaInternal string
	// KafkaToolHeap is the heap of the Kafka tool smoke runs in the
	// broker's container.
	KafkaToolHeap string
	// MySQLDatabase is the database of MySQL's row counts ("" without
	// MySQL).
	MySQLDatabase string
	Kafka         bool
	ClickHouse    bool
	Flink         bool
	// LakeFiles: smoke looks for the lakes' files on the warehouse.
	LakeFiles bool
	// Smoke and Batch are the lines of smoke() and batch().
	Smoke, Batch []string
	// BatchLakes: the bounded jobs read lake tables, created first.
	BatchLakes bool
	// BatchJobs counts the bounded jobs batch() runs.
	BatchJobs   int
	ConsolePort int
}

// streamLab is the lab's control script (templates/stream-lab.sh.tmpl):
// POSIX sh, docker as the only tool on the host.
func streamLab(l *schemas.Lab, st *stack) ([]byte, error) {
	s := l.Stack
	d := streamLabData{
		scriptData:    newScriptData(l),
		KafkaInternal: KafkaInternal,
		KafkaToolHeap: shWord(schemas.KafkaProbeHeap),
		Kafka:         s.Kafka != nil,
		ClickHouse:    s.ClickHouse != nil,
		Flink:         s.Flink != nil,
		LakeFiles:     s.Flink != nil && s.HasLakes(),
		BatchLakes:    s.Flink != nil && len(lakeTables(l)) > 0 && len(l.AvailableJobs(schemas.ModeBatch)) > 0,
	}
	if s.MySQL != nil {
		d.MySQLDatabase = s.MySQL.Database
	}
	if s.Console != nil {
		d.ConsolePort = s.Console.Port
	}
	// smoke: the lab's smoke checks (schemas.Lab.SmokeChecks), each as
	// this script checks its kind.
	for _, c := range l.SmokeChecks() {
		d.Smoke = append(d.Smoke, smokeScript[c.Kind](st, c)...)
	}
	for _, j := range l.Jobs {
		if j.Mode != schemas.ModeBatch {
			continue
		}
		if j.Unavailable != "" {
			d.Batch = append(d.Batch, "info "+shQuote("bounded job "+j.Name+" is unavailable in this stack: it "+j.Unavailable))
			continue
		}
		if s.Flink == nil {
			continue
		}
		d.BatchJobs++
		if table, expr, ok := l.ResultVersion(j); ok {
			d.Batch = append(d.Batch, fmt.Sprintf("run_batch %s %s %s", j.Name, shQuote(table), shQuote(expr)))
		} else {
			d.Batch = append(d.Batch, fmt.Sprintf("run_batch %s '' ''", j.Name))
		}
	}
	return execTemplate("stream-lab.sh", d)
}

// smokeScript gives the lines of smoke() that check one kind of smoke
// check; labgen smoke implements the same kinds in Go (runtime/runner).
var smokeScript = map[schemas.SmokeKind]func(st *stack, c schemas.SmokeCheck) []string{
	schemas.SmokeServices: func(st *stack, _ schemas.SmokeCheck) (out []string) {
		for _, name := range st.services() {
			if st.oneShot[name] {
				out = append(out, fmt.Sprintf("check %s completed %s", shQuote("service "+name+" completed"), name))
			} else {
				out = append(out, fmt.Sprintf("check %s healthy %s", shQuote("service "+name+" is healthy"), name))
			}
		}
		return out
	},
	schemas.SmokeJob: func(_ *stack, c schemas.SmokeCheck) []string {
		names := make([]string, len(c.Names))
		for i, n := range c.Names {
			names[i] = shWord(n)
		}
		return []string{fmt.Sprintf("check %s running %s", shQuote(c.ComposeName()), strings.Join(names, " "))}
	},
	schemas.SmokeGrows: func(_ *stack, c schemas.SmokeCheck) []string {
		return []string{fmt.Sprintf("check %s grows %s", shQuote(c.Name), c.Store.Name)}
	},
	schemas.SmokeRows: func(_ *stack, c schemas.SmokeCheck) []string {
		switch c.Store.Kind {
		case schemas.StoreMySQL:
			return []string{fmt.Sprintf("check %s has_mysql_rows %s", shQuote(c.Name), c.Store.Name)}
		case schemas.StoreKafka:
			return []string{fmt.Sprintf("check %s has_messages %s", shQuote(c.Name), shQuote(c.Table))}
		case schemas.StoreClickHouse:
			return []string{fmt.Sprintf("check %s has_rows %s", shQuote(c.Name), c.Table)}
		}
		return nil
	},
	schemas.SmokeLake: func(_ *stack, c schemas.SmokeCheck) []string {
		return []string{fmt.Sprintf("check %s has_files %s %s", shQuote(c.Name), ComposeFace.Warehouse+"/"+c.Dir, shQuote(c.Pattern))}
	},
	schemas.SmokeNote: func(_ *stack, c schemas.SmokeCheck) []string {
		return []string{"info " + shQuote(c.Name)}
	},
}
