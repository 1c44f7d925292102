package render

import (
	"github.com/labgen/labgen/schemas"
)

// renderStack adds what runs the lab: compose.yaml, stream-lab, the Flink
// image (flink/), the labgen image (labgen/) and the scripts the Flink
// containers run (scripts/). See render/doc.go for the directory.
func renderStack(l *schemas.Lab, opts Options, files Files) error {
	jars, err := connectorJars(l)
	if err != nil {
		return err
	}
	if l.Stack.Flink != nil {
		files["flink/Dockerfile"] = flinkDockerfile(l, jars)
		files["flink/config.yaml"] = flinkConfig(l)
		files["flink/entrypoint.sh"] = flinkEntrypoint(l)
		if files["scripts/flink-jobs.sh"], err = flinkJobsScript(l, jars); err != nil {
			return err
		}
	}
	if needsLabgenImage(l) {
		files["labgen/Dockerfile"] = labgenDockerfile(l, opts)
		if !opts.NoSource {
			src, err := labgenSource()
			if err != nil {
				return err
			}
			for p, b := range src {
				files[labgenSrcDir+p] = b
			}
		}
	}
	st := buildStack(l, ProjectName(l, opts.Dir), files)
	compose, err := composeYAML(l, st.project)
	if err != nil {
		return err
	}
	files["compose.yaml"] = compose
	files["stream-lab"], err = streamLab(l, st)
	return err
}
