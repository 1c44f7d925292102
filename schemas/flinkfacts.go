package schemas

// Facts about what the lab runs on Flink at once, which size its
// TaskManagers (render's config.yaml and runbook, the registry's memory
// budget).

// AvailableJobs lists the jobs of a mode that the stack can run.
func (l *Lab) AvailableJobs(mode string) []string {
	var out []string
	for _, j := range l.Jobs {
		if j.Mode == mode && j.Unavailable == "" {
			out = append(out, j.Name)
		}
	}
	return out
}

// FlinkMemory is the process size of the JobManager and of each
// TaskManager in MiB. Without lakes no Iceberg or Paimon writer, no
// tiering job and no bounded job runs in the TaskManager, so it is smaller.
// A TaskManager's size includes TaskManagerMetaspaceMB.
func (s *Stack) FlinkMemory() (jm, tm int) {
	if s.HasLakes() {
		return 640, 1344
	}
	return 512, 960
}

// TaskManagerMetaspaceMB is taskmanager.memory.jvm-metaspace.size, Flink's
// default: the connector jars in lib/ (CDC, Kafka, JDBC, and with lakes
// Fluss, Paimon, Iceberg and Hadoop) load into the TaskManager's metaspace
// beside the jobs' generated classes.
const TaskManagerMetaspaceMB = 256

// SlotNeed is one thing the lab runs at once on its TaskManagers.
type SlotNeed struct {
	What  string
	Slots int
}

// SlotNeeds lists what the lab runs at once: each streaming job, the
// tiering job, one job of the batch loop and one of a manual
// ./stream-lab batch (bounded jobs run one after another; labgen's batch
// step runs them side by side only in slots it finds free), and one spare.
func (l *Lab) SlotNeeds() []SlotNeed {
	f := l.Stack.Flink
	if f == nil {
		return nil
	}
	p := max(1, f.Parallelism)
	var out []SlotNeed
	for _, j := range l.AvailableJobs(ModeStreaming) {
		out = append(out, SlotNeed{"streaming job " + j, p})
	}
	if l.Stack.Fluss != nil {
		out = append(out, SlotNeed{"the Fluss tiering job", 1})
	}
	if len(l.AvailableJobs(ModeBatch)) > 0 {
		if l.Stack.BatchLoop != nil {
			out = append(out, SlotNeed{"one bounded job of the batch loop", p})
		}
		out = append(out, SlotNeed{"one bounded job of ./stream-lab batch or labgen batch", p})
	}
	return append(out, SlotNeed{"one spare", 1})
}

// TaskSlots is each TaskManager's numberOfTaskSlots: what the lab runs at
// once, spread over its TaskManagers, and at least the lab's slots.
func (l *Lab) TaskSlots() int {
	f := l.Stack.Flink
	if f == nil {
		return 0
	}
	need := 0
	for _, n := range l.SlotNeeds() {
		need += n.Slots
	}
	tms := max(1, f.TaskManagers)
	return max(f.Slots, (need+tms-1)/tms)
}
