package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/labgen/labgen/schemas"
)

// runbook renders the lab as a reader follows it by hand: setup, the data
// flow, where everything is, and each experiment's steps with its SQL and
// commands. labgen run executes the same steps and fills in the results.
// dir is Options.Dir, which names the compose project.
func runbook(l *schemas.Lab, dir string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<!-- %s -->\n\n", strings.TrimSpace(strings.TrimPrefix(generated(l, ""), " ")))
	w("# %s\n\n", l.Title)
	if l.Description != "" {
		w("%s\n\n", l.Description)
	}

	w("## Setup\n\n")
	w("Everything runs in Docker; this directory is all it needs. From here:\n\n")
	w("```sh\n./stream-lab compose up -d --build   # first start builds the Flink and labgen images\n./stream-lab smoke                     # every check must pass before the experiments\n```\n\n")
	if dir != "" {
		w("`./stream-lab compose …` passes its arguments to `docker compose` with this lab's file and project, `%s`, which is this directory's own. ", ProjectName(l, dir))
		w("`./stream-lab batch` runs the bounded jobs now; `./stream-lab compose down -v` removes the lab and its data (this directory's volumes, no other render's). ")
	} else {
		w("`./stream-lab compose …` passes its arguments to `docker compose` with this lab's file and project, `%s`. ", ProjectName(l, dir))
		w("`./stream-lab batch` runs the bounded jobs now; `./stream-lab compose down -v` removes the lab and its data. ")
	}
	w("Users and passwords are in `.env`. With labgen installed, `labgen run .` executes the experiments below and writes a record of what it observed into `records/`.\n\n")
	w("Without Docker, labgen runs the same lab as local processes: `labgen up . --native` (then `labgen run .`, `labgen status .`, `labgen down .`). ")
	// The stand-ins of the engines this lab's stack runs, not the seed
	// lab's.
	var standIns []string
	if l.Stack.MySQL != nil {
		standIns = append(standIns, "MySQL is MariaDB")
	}
	if l.Stack.ClickHouse != nil {
		standIns = append(standIns, "ClickHouse is chdb behind an HTTP front (at the HTTP port below; no native TCP port)")
	}
	switch len(standIns) {
	case 0:
		w("Every engine there is the one compose runs")
	case 1:
		w("There %s, named as a stand-in in the record", standIns[0])
	default:
		w("There %s, each named as a stand-in in the record", strings.Join(standIns, " and "))
	}
	if s := l.Stack; s.KafkaUI != nil && s.Kafka != nil {
		w("; Kafka UI has no native form: read a key's messages with `labgen run` (the experiments' kafka steps) or any Kafka client on 127.0.0.1:%d", s.Kafka.Port)
	} else if s.Kafka != nil && hasStep(l, schemas.StepKafka) {
		w("; the kafka steps' commands below run in the broker's container, which has no native form: read a key's messages with `labgen run` or any Kafka client on 127.0.0.1:%d", s.Kafka.Port)
	}
	if l.Stack.BatchLoop != nil {
		w("; the background batch loop does not run, so use `labgen batch .` where this runbook says `./stream-lab batch`")
	}
	w(". When `labgen run` carries out a step such as `./stream-lab compose stop taskmanager`, it stops or starts the native process instead.\n\n")

	w("## Where things are\n\n")
	w("| part | address | what to look at |\n| --- | --- | --- |\n")
	s := l.Stack
	if s.Console != nil {
		w("| query console | http://127.0.0.1:%d | the presets below, MySQL and ClickHouse, read-only |\n", s.Console.Port)
	}
	if s.Flink != nil {
		w("| Flink UI | http://127.0.0.1:%d | jobs, records in/out, checkpoints, exceptions |\n", s.Flink.UIPort)
	}
	if s.KafkaUI != nil && s.Kafka != nil {
		w("| Kafka UI | http://127.0.0.1:%d | topics, messages by key |\n", s.KafkaUI.Port)
	}
	if s.MySQL != nil {
		w("| MySQL | 127.0.0.1:%d, database `%s` | source tables |\n", s.MySQL.Port, s.MySQL.Database)
	}
	if s.Kafka != nil {
		w("| Kafka | 127.0.0.1:%d | topics |\n", s.Kafka.Port)
	}
	if s.ClickHouse != nil {
		w("| ClickHouse | http://127.0.0.1:%d, database `%s` | serving tables |\n", s.ClickHouse.HTTPPort, s.ClickHouse.Database)
	}
	w("\n")

	resources(&b, l)

	w("## Data flow\n\n```mermaid\n%s```\n\n", mermaid(l))

	if len(l.Variables) > 0 {
		w("## Variables of this rendering\n\n| variable | value | from | meaning |\n| --- | --- | --- | --- |\n")
		for _, v := range l.Variables {
			w("| `%s` | `%s` | %s | %s |\n", v.Name, cell(string(v.Value)), v.Source, cell(v.Description))
		}
		w("\n")
	}
	if len(s.Disabled) > 0 {
		w("This variant leaves out: %s. Experiments that need them are marked unavailable below.\n\n", strings.Join(s.Disabled, ", "))
	}

	w("## Tables\n\n")
	for _, t := range l.Tables {
		var where []string
		for _, st := range t.Stores {
			where = append(where, storeLabel(l, st))
		}
		w("- **%s** (key %s) in %s", t.Name, strings.Join(t.Key, ", "), strings.Join(where, "; "))
		if t.Description != "" {
			w(": %s", oneLine(t.Description))
		}
		w("\n")
	}
	w("\n")

	if len(l.Jobs) > 0 {
		w("## Flink jobs\n\n")
		for _, j := range l.Jobs {
			w("- **%s** (%s), `sql/flink/%s.sql`", j.Name, j.Mode, j.Name)
			if j.Description != "" {
				w(": %s", oneLine(j.Description))
			}
			if j.Unavailable != "" {
				w(" *Unavailable: the job %s.*", j.Unavailable)
			}
			w("\n")
		}
		w("\n")
	}
	if len(l.Presets) > 0 {
		if s.Console != nil {
			w("## Presets\n\nRead-only queries in the console (also in `sql/presets/`).\n\n")
		} else {
			w("## Presets\n\nRead-only queries in `sql/presets/`, to run with the engine's own client (see the experiments below).\n\n")
		}
		for _, p := range l.Presets {
			title := p.Title
			if title == "" {
				title = p.Name
			}
			w("- **%s** (`%s`, %s)", title, p.Name, engineName(p.Engine))
			if p.Description != "" {
				w(": %s", oneLine(p.Description))
			}
			w("\n")
		}
		w("\n")
	}

	w("## Experiments\n\n")
	w("Counts and timings differ on every run: the producer is continuous and random. ")
	w("\"Expected\" says what the lab is built to show, not that your run has shown it.\n\n")
	for _, e := range l.Experiments {
		experimentSection(&b, l, e)
	}
	return []byte(b.String())
}

func experimentSection(b *strings.Builder, l *schemas.Lab, e *schemas.Experiment) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("### %02d %s\n\n", e.Number, e.Title)
	if e.Unavailable != "" {
		w("> **Unavailable in this variant:** the experiment %s.\n\n", e.Unavailable)
	}
	if e.Question != "" {
		w("**Question:** %s\n\n", e.Question)
	}
	if e.Intro != "" {
		w("%s\n\n", e.Intro)
	}
	if len(e.Record) > 0 {
		w("**Record:** %s.\n\n", strings.Join(e.Record, "; "))
	}
	for i, st := range e.Steps {
		title := st.Title
		if title == "" {
			title = st.Name
		}
		w("%d. **%s** (`%s`)", i+1, title, st.Name)
		if st.Text != "" {
			w(" %s", oneLine(st.Text))
		}
		w("\n\n")
		stepBody(b, l, e, st)
		for _, c := range st.Captures {
			w("   Write down **%s** (`%s`).\n\n", c.Name, oneLine(c.Expr.Source))
		}
		for _, x := range st.Expects {
			w("   Expect: %s (`%s`)\n\n", x.Message, oneLine(x.Condition.Source))
		}
	}
	for _, m := range e.Measures {
		unit := ""
		if m.Unit != "" {
			unit = ", in " + m.Unit
		}
		for _, d := range []struct {
			what string
			x    *schemas.Expr
		}{{"samples", m.Samples}, {"window", m.Window}, {"resolution", m.Resolution}} {
			if d.x == nil {
				continue
			}
			text := d.x.Text
			if d.x.Deferred() {
				text = oneLine(d.x.Source)
			}
			unit += fmt.Sprintf("; %s `%s`", d.what, text)
		}
		w("**Measure %s:** %s (`%s`%s).\n\n", m.Name, m.Title, oneLine(m.Value.Source), unit)
	}
	if e.Expected != "" {
		w("**Expected:** %s\n\n", e.Expected)
	}
	if e.Interpretation != "" {
		w("**Interpretation:** %s\n\n", e.Interpretation)
	}
}

func stepBody(b *strings.Builder, l *schemas.Lab, e *schemas.Experiment, st *schemas.Step) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	switch st.Kind {
	case schemas.StepQuery:
		q := st.Query
		switch {
		case l.Stack.Console == nil:
			// No console service: the engine's own client in its container.
			w("   Run in %s's own client, `%s`:\n\n", engineName(q.Engine), engineClient(l, q.Engine))
		case q.Preset != "":
			w("   In the console, choose %s and run the preset `%s`:\n\n", engineName(q.Engine), q.Preset)
		default:
			w("   In the console, choose %s and run:\n\n", engineName(q.Engine))
		}
		fence(b, "sql", q.SQL.Text)
	case schemas.StepKafka:
		k := st.Kafka
		switch {
		case l.Stack.KafkaUI == nil || l.Stack.Kafka == nil:
			kafkaByHand(b, k)
		case k.Offsets:
			w("   In Kafka UI, open the topic `%s` and note each partition's offsets.\n\n", k.Topic)
		case k.Key != nil:
			w("   In Kafka UI, open the topic `%s` and show every message whose key is `%s`.\n\n", k.Topic, k.Key.Text)
		default:
			w("   In Kafka UI, open the topic `%s` and read its last %d messages.\n\n", k.Topic, k.Tail)
		}
	case schemas.StepFlink:
		f := st.Flink
		if f.Job != "" {
			w("   In the Flink UI, open the job `%s` and look at: %s.\n\n", f.Job, strings.Join(f.Show, ", "))
		} else {
			w("   In the Flink UI, look at the running jobs: %s.\n\n", strings.Join(f.Show, ", "))
		}
	case schemas.StepCompose:
		if tms := TaskManagerNames(l); len(tms) > 1 && strings.HasPrefix(st.Compose.Service, "taskmanager") {
			w("   This acts on `%s` alone, one of the lab's %d TaskManagers (%s); the others keep running.\n\n",
				st.Compose.Service, len(tms), "`"+strings.Join(tms, "`, `")+"`")
		}
		fence(b, "sh", fmt.Sprintf("./stream-lab compose %s %s", st.Compose.Action, st.Compose.Service))
	case schemas.StepLab:
		fence(b, "sh", "./stream-lab "+st.Lab.Action)
	case schemas.StepWait:
		wt := st.Wait
		if wt.Rerun != "" && wt.Until == nil {
			w("   Repeat step `%s` every %s for %s and note each result with its time.\n\n", wt.Rerun, wt.Interval, wt.Duration)
		} else if wt.Rerun != "" {
			w("   Repeat step `%s` every %s until `%s` holds; give up after %s and record that it did not.\n\n", wt.Rerun, wt.Interval, oneLine(wt.Until.Source), wt.Timeout)
		} else {
			w("   Wait %s.\n\n", wt.Duration)
		}
	case schemas.StepUsage:
		w("   Note each service's CPU time and memory now (`labgen status` on the native stack; with Docker, `docker stats`).\n\n")
	case schemas.StepNote:
		for _, line := range strings.Split(st.Note, "\n") {
			w("   > %s\n", line)
		}
		w("\n")
	}
}

// kafkaByHand tells how to do a kafka step in a stack without Kafka UI:
// the run's record shows what the step read, and Kafka's own tools in the
// broker's container (with the small heap smoke's probe has, inside the
// broker's memory limit) read the same by hand.
func kafkaByHand(b *strings.Builder, k *schemas.KafkaStep) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	tool := func(name string) string {
		return fmt.Sprintf("./stream-lab compose exec -T -e KAFKA_HEAP_OPTS=%s kafka /opt/kafka/bin/%s --bootstrap-server %s --topic %s",
			schemas.KafkaProbeHeap, name, schemas.KafkaInternal, k.Topic)
	}
	if k.Offsets {
		w("   The stack has no Kafka UI: `labgen run` records each partition's offsets of the topic `%s`; by hand, list them with Kafka's own tool in the broker's container (a line per partition, topic:partition:end offset):\n\n", k.Topic)
		fence(b, "sh", tool("kafka-get-offsets.sh"))
		return
	}
	timeout := 10 * time.Second
	if d, err := time.ParseDuration(k.Timeout); err == nil && d > 0 {
		timeout = d
	}
	consume := fmt.Sprintf("%s --from-beginning --timeout-ms %d --property print.key=true", tool("kafka-console-consumer.sh"), timeout.Milliseconds())
	lines := "each line is a message's key, a tab and its value, null for a tombstone"
	if k.Key != nil {
		w("   The stack has no Kafka UI: `labgen run` records every message of the topic `%s` whose key is `%s`; by hand, read the topic with Kafka's console consumer in the broker's container and keep those (%s):\n\n", k.Topic, k.Key.Text, lines)
		fence(b, "sh", consume+" | grep -F -- "+shellWord(k.Key.Text))
		return
	}
	w("   The stack has no Kafka UI: `labgen run` records the last %d messages of the topic `%s`; by hand, read the topic with Kafka's console consumer in the broker's container (%s):\n\n", k.Tail, k.Topic, lines)
	fence(b, "sh", fmt.Sprintf("%s | tail -n %d", consume, k.Tail))
}

// hasStep tells whether an experiment of the lab has a step of a kind.
func hasStep(l *schemas.Lab, kind string) bool {
	for _, e := range l.Experiments {
		for _, st := range e.Steps {
			if st.Kind == kind {
				return true
			}
		}
	}
	return false
}

// fence writes a fenced block indented as a step's body.
func fence(b *strings.Builder, lang, body string) {
	fmt.Fprintf(b, "   ```%s\n", lang)
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		fmt.Fprintf(b, "   %s\n", line)
	}
	b.WriteString("   ```\n\n")
}

// shellWord quotes s for sh in single quotes.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func engineName(e string) string {
	switch e {
	case schemas.EngineMySQL:
		return "MySQL"
	case schemas.EngineClickHouse:
		return "ClickHouse"
	}
	return e
}

func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", "\\|")
}

func storeLabel(l *schemas.Lab, s *schemas.Store) string {
	if k := schemas.StoreKindOf(s.Kind); k != nil {
		return k.Place(l.Stack, s)
	}
	return s.Kind
}

// mermaid draws the data flow from the lab: producer → MySQL → jobs →
// stores → ClickHouse.
func mermaid(l *schemas.Lab) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	node := func(id, label string) string { return fmt.Sprintf("%s[\"%s\"]", id, label) }
	id := func(kind, name string) string { return kind + "_" + name }
	seen := map[string]bool{}
	edge := func(from, to string) {
		line := fmt.Sprintf("  %s --> %s\n", from, to)
		if !seen[line] {
			seen[line] = true
			b.WriteString(line)
		}
	}
	label := func(s *schemas.Store) string {
		if k := schemas.StoreKindOf(s.Kind); k != nil {
			return k.Node(l.Stack, s)
		}
		return s.Name
	}
	storeNode := func(t *schemas.Table, kind string) string {
		s := t.Store(kind)
		return node(id(kind, t.Name), label(s))
	}
	for _, p := range l.Producers {
		pid := node("producer_"+p.Name, "producer "+p.Name)
		if t := l.Table(p.Table); t != nil && t.Store(schemas.StoreMySQL) != nil {
			edge(pid, storeNode(t, schemas.StoreMySQL))
		}
		for _, f := range p.Follows {
			if t := l.Table(f.Table); t != nil && t.Store(schemas.StoreMySQL) != nil {
				edge("producer_"+p.Name, storeNode(t, schemas.StoreMySQL))
			}
		}
	}
	for _, j := range l.Jobs {
		if j.Unavailable != "" {
			continue
		}
		jid := node("job_"+j.Name, fmt.Sprintf("Flink %s (%s)", j.Name, j.Mode))
		for _, use := range j.Uses {
			if t := l.Table(use.Table); t != nil && t.Store(use.Kind) != nil {
				edge(storeNode(t, use.Kind), jid)
			}
		}
		if t := l.Table(j.Writes); t != nil {
			for _, s := range schemas.FlinkSinks(t) {
				edge("job_"+j.Name, storeNode(t, s.Kind))
			}
		}
	}
	for _, t := range l.Tables {
		if ch := t.Store(schemas.StoreClickHouse); ch != nil && ch.Ingest == schemas.StoreKafka && t.Store(schemas.StoreKafka) != nil {
			edge(id(schemas.StoreKafka, t.Name), storeNode(t, schemas.StoreClickHouse))
		}
	}
	return b.String()
}

// engineClient is the command that opens an engine's own client in its
// container, for a stack without the query console.
func engineClient(l *schemas.Lab, engine string) string {
	switch engine {
	case schemas.EngineMySQL:
		return fmt.Sprintf(`./stream-lab compose exec mysql sh -c 'MYSQL_PWD="$MYSQL_READER_PASSWORD" mysql -u "$MYSQL_READER_USER" %s'`, l.Stack.MySQL.Database)
	case schemas.EngineClickHouse:
		// The client reads CLICKHOUSE_USER and CLICKHOUSE_PASSWORD, which
		// the container has.
		return `./stream-lab compose exec clickhouse clickhouse-client`
	}
	return "./stream-lab compose exec " + engine
}

// resources is the runbook's Resources section: each service's memory
// limit and why, and how the TaskManager slots are sized.
func resources(b *strings.Builder, l *schemas.Lab) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	ms := MemoryBudget(l)
	if len(ms) == 0 {
		return
	}
	w("## Resources\n\n")
	w("Every service has a memory limit (`mem_limit` in `compose.yaml`), every JVM an explicit heap. ")
	w("Together the limits come to **%s**; give Docker at least that much (Docker Desktop: Settings → Resources). ", mib(memoryTotal(ms)))
	w("A service that reaches its limit is killed and restarted, and `./stream-lab smoke` says which one is not healthy.\n\n")
	w("| service | memory | why |\n| --- | --- | --- |\n")
	for _, m := range ms {
		why := m.Why
		if m.OneShot {
			why += " (runs once at start)"
		}
		w("| %s | %s | %s |\n", m.Service, mib(m.MB), cell(why))
	}
	w("\n")
	if f := l.Stack.Flink; f != nil {
		var parts []string
		total := 0
		for _, n := range l.SlotNeeds() {
			parts = append(parts, fmt.Sprintf("%s (%d)", n.What, n.Slots))
			total += n.Slots
		}
		tms := max(1, f.TaskManagers)
		slots := l.TaskSlots()
		w("Flink slots: what the lab runs at once, plus one — %s: %d. ", strings.Join(parts, ", "), total)
		if tms > 1 {
			w("Spread over %d TaskManagers: %d slots each", tms, slots)
		} else {
			w("The TaskManager has %d slots", slots)
		}
		if slots*tms > total {
			w(" (at least the lab's `slots` per TaskManager)")
		}
		w(". A job beyond them waits for a free slot.\n\n")
	}
}
