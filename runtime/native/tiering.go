package native

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/labdir"
)

// EnsureTiering starts the Fluss tiering job unless it runs, as compose's
// one-shot tiering service does. A lab without Fluss has none.
func EnsureTiering(ctx context.Context, lab *labdir.Lab, restURL string, progress func(string)) error {
	if lab.Lab.Stack.Fluss == nil || lab.Lab.Stack.Flink == nil {
		return nil
	}
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		return err
	}
	cp, err := Resolve(ctx, lab, nil)
	if err != nil {
		return err
	}
	id, err := SubmitTiering(ctx, restURL, cp.TieringJar, TieringArgs(lay, PortsOf(lab)))
	if err != nil {
		return fmt.Errorf("the Fluss tiering job: %w", err)
	}
	if progress != nil {
		progress(fmt.Sprintf("the Fluss tiering job runs (%s)", id))
	}
	return nil
}

// Names of the tiering job: flink-jobs.sh sets pipeline.name; the job's
// own default otherwise.
const (
	TieringJobName        = "fluss-tiering"
	tieringDefaultJobName = "Fluss Lake Tiering Service - paimon"
)

// SubmitTiering starts the Fluss tiering job through the Flink REST API
// (upload the jar, run it), as flink-jobs.sh's `flink run -d
// -Dpipeline.name=fluss-tiering` does, unless a job of either of its
// names is active; then jobID is that job's.
func SubmitTiering(ctx context.Context, restURL, jar string, args []string) (jobID string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c := flinkapi.New(strings.TrimRight(restURL, "/"), "")
	jobs, err := c.Jobs(ctx)
	if err != nil {
		return "", err
	}
	for _, name := range []string{TieringJobName, tieringDefaultJobName} {
		if j, ok := flinkapi.FindJob(jobs, name); ok && flinkapi.Active(j.State) {
			return j.ID, nil
		}
	}
	jarID, err := c.UploadJar(ctx, jar)
	if err != nil {
		return "", err
	}
	id, err := c.RunJar(ctx, jarID, args, map[string]string{"pipeline.name": TieringJobName})
	if err != nil {
		return "", fmt.Errorf("running the tiering job: %w", err)
	}
	return id, nil
}
