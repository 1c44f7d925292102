package render

import (
	"strings"

	"github.com/labgen/labgen/schemas"
)

// TieringJobName is the Flink job name of the Fluss → lake tiering job
// (its pipeline.name).
const TieringJobName = schemas.TieringJobName

// tieringDefaultName is the name Fluss's tiering job gives itself when
// pipeline.name is not set (LakeTieringJobBuilder).
func tieringDefaultName(l *schemas.Lab) string {
	if names := l.TieringJobNames(); len(names) > 1 {
		return names[1]
	}
	return ""
}

// pauseSeconds is the batch loop's pause in whole seconds (at least one).
func pauseSeconds(l *schemas.Lab) int {
	if l.Stack.BatchLoop == nil {
		return 300
	}
	s := int(schemas.ParseDuration(l.Stack.BatchLoop.Pause).Seconds())
	if s < 1 {
		s = 1
	}
	return s
}

// flinkJobsData is what templates/flink-jobs.sh.tmpl needs of the lab.
type flinkJobsData struct {
	scriptData
	// StreamingJobs and BatchJobs are the jobs the stack can run, by
	// name, space-separated.
	StreamingJobs, BatchJobs string
	BatchPause               int
	// LakeTables are the lake tables to create (catalog.db.table,
	// space-separated; "" when the lab keeps none), LakeMarker the line
	// that starts each in lake_tables.sql.
	LakeTables, LakeMarker string
	// Fluss is the tiering job's, when the stack runs Fluss.
	Fluss *tieringData
	// CDCUsers are the placeholders run-sql fills from the environment.
	CDCUsers []cdcUser
}

type tieringData struct {
	Job, Jar, Lake, DefaultName, Warehouse, Bootstrap string
}

// flinkJobsScript runs in the Flink containers
// (templates/flink-jobs.sh.tmpl): it fills the CDC placeholders, keeps the
// streaming jobs (and the tiering job) running, and runs the batch loop.
func flinkJobsScript(l *schemas.Lab, jars []Jar) ([]byte, error) {
	d := flinkJobsData{
		scriptData:    newScriptData(l),
		StreamingJobs: strings.Join(l.AvailableJobs(schemas.ModeStreaming), " "),
		BatchJobs:     strings.Join(l.AvailableJobs(schemas.ModeBatch), " "),
		BatchPause:    pauseSeconds(l),
		LakeTables:    strings.Join(LakeTableNames(l), " "),
		LakeMarker:    LakeTableMarker,
		CDCUsers:      cdcUsers(l),
	}
	if f := l.Stack.Fluss; f != nil {
		d.Fluss = &tieringData{Job: TieringJobName, Lake: f.Lake, DefaultName: tieringDefaultName(l),
			Warehouse: PaimonWarehouse, Bootstrap: FlussBootstrap}
		if t, ok := tieringJar(jars); ok {
			d.Fluss.Jar = "$FLINK_HOME/" + t.Path()
		}
	}
	return execTemplate("flink-jobs.sh", d)
}

// hasLakeTables tells whether the lab has lake tables to create.
func hasLakeTables(l *schemas.Lab) bool { return len(LakeTableNames(l)) > 0 }
