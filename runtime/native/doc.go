// Package native runs a rendered lab's stack as supervised local
// processes, for machines without Docker: the native face of the same
// components the compose file describes.
//
// Each compose service that can run natively has a Service here: MariaDB
// for MySQL (from Debian's package), ZooKeeper, Kafka, the Fluss
// coordinator and tablet server and Flink's JobManager, TaskManager and
// SQL gateway (java -cp over jars that Maven resolves and that are checked
// against the lab's labgen.lock), and ClickHouse through chdb behind a
// small HTTP front (native/chdb). State lives under OUT/.native/: one data
// directory, log and configuration directory per service, the lake
// warehouses and Flink's checkpoints.
//
// A supervisor process (labgen up --native starts it in the background)
// owns the services: it starts them in dependency order, probes each the
// way the compose health check does, stops and starts one on request
// (experiment 06 stops the TaskManager), and stops them all on labgen down.
// Its children die with it (parent-death signal), so nothing outlives it.
package native
