package native

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
)

// addJVMServices adds ZooKeeper and the Fluss servers, Kafka, and Flink's
// JobManager, TaskManager and SQL gateway, over class paths Maven
// resolves (the lab's connector jars checked against labgen.lock).
func (p *Plan) addJVMServices(ctx context.Context, lab *labdir.Lab, files render.Files, progress func(string)) error {
	s := lab.Lab.Stack
	if s.Kafka == nil && s.Flink == nil && s.Fluss == nil {
		return nil
	}
	cp, err := Resolve(ctx, lab, progress)
	if err != nil {
		return err
	}
	p.classpaths = cp
	lay := p.Layout
	if s.Fluss != nil {
		p.Services = append(p.Services, ZooKeeperService(lay, cp, p.Ports))
	}
	if s.Kafka != nil {
		p.Services = append(p.Services, KafkaService(lay, cp, p.Ports, lab.Lab))
	}
	if s.Fluss != nil {
		p.Services = append(p.Services, FlussCoordinatorService(lay, cp, p.Ports), FlussTabletService(lay, cp, p.Ports))
	}
	if s.Flink == nil {
		return nil
	}
	rendered, err := os.ReadFile(filepath.Join(lab.Dir, "flink", "config.yaml"))
	if err != nil {
		return fmt.Errorf("the rendered Flink configuration: %w", err)
	}
	config := FlinkConfig(rendered, lay, p.Ports)
	jm, err := JobManagerService(ctx, lay, cp, p.Ports, config)
	if err != nil {
		return err
	}
	p.Services = append(p.Services, jm)
	// As many TaskManagers as the lab's flink block asks for, named as
	// compose names them, so that "stop taskmanager" means the same one.
	for i := 1; i <= max(s.Flink.TaskManagers, 1); i++ {
		tm, err := TaskManagerService(ctx, lay, cp, p.Ports, config, render.TaskManagerName(i))
		if err != nil {
			return err
		}
		p.Services = append(p.Services, tm)
	}
	p.Services = append(p.Services, SQLGatewayService(lay, cp, p.Ports, config))
	return nil
}

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
