package kube

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/schemas"
)

// operated are the compose services an operator (or the SQL gateway's
// own Deployment) stands for: Strimzi runs Kafka and creates the topics,
// the Flink operator runs the clusters and keeps the jobs running (what
// compose's job-submitter does), and the batch loop has no Kubernetes
// form (run bounded jobs through the SQL gateway).
var operated = map[string]bool{
	"kafka": true, "kafka-init": true,
	"jobmanager": true, "taskmanager": true, "sql-gateway": true, "tiering": true, "job-submitter": true,
	"batch-loop": true,
}

// kafka is the Strimzi cluster: one node pool whose nodes are both
// controllers and brokers (KRaft), and a KafkaTopic per topic of the lab.
//
// Besides the cluster's own listener (plain, 9092) it has one for labgen
// run --kubernetes, which reaches each broker through a kubectl
// port-forward of its pod: listener "local" on 9094, through which
// broker i advertises 127.0.0.1:19094+i, the local port labgen forwards
// to it (runtime/kube reads these from the rendered Kafka). Strimzi
// takes per-broker advertisedHost and advertisedPort on internal
// listeners too (ListenersUtils.brokerAdvertisedHost/-Port).
func (r *renderer) kafka() error {
	n := r.opts.Brokers
	rf := min(n, 3)
	minISR := max(1, rf-1)
	clusterLabel := M{"strimzi.io/cluster": KafkaCluster}
	pool := M{
		"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaNodePool",
		"metadata": meta(NodePool, merge(r.labels("kafka"), clusterLabel)),
		"spec": M{
			"replicas": n,
			"roles":    []any{"controller", "broker"},
			// deleteClaim: Strimzi gives a Kafka created again a new KRaft
			// cluster ID, and brokers refuse logs of another; so the logs
			// go with the cluster (labgen down), as the topics do.
			"storage": M{"type": "jbod", "volumes": []any{M{
				"id": 0, "type": "persistent-claim", "size": "10Gi", "deleteClaim": true, "kraftMetadata": "shared"}}},
			"resources":  memoryResources(r.memory["kafka"]),
			"jvmOptions": heapOptions(render.KafkaHeap(r.l)),
		},
	}
	config := M{}
	for _, x := range render.KafkaSettings(r.l).Without(strimziManaged...) {
		config[x.Key] = x.Value
	}
	for k, v := range kafkaReplication(rf, minISR) {
		config[k] = v
	}
	var local []any
	for i := range n {
		local = append(local, M{"broker": i, "advertisedHost": "127.0.0.1", "advertisedPort": 19094 + i})
	}
	kafka := M{
		"apiVersion": "kafka.strimzi.io/v1", "kind": "Kafka",
		"metadata": meta(KafkaCluster, r.labels("kafka")),
		"spec": M{
			"kafka": M{
				"listeners": []any{
					M{"name": "plain", "port": 9092, "type": "internal", "tls": false},
					M{"name": "local", "port": 9094, "type": "internal", "tls": false,
						"configuration": M{"brokers": local}},
				},
				"config": config,
			},
			// The Topic Operator creates the lab's topics from the
			// KafkaTopics below.
			"entityOperator": M{"topicOperator": M{}},
		},
	}
	objs := []M{kafka, pool}
	for _, t := range r.l.KafkaTopics() {
		objs = append(objs, M{
			"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaTopic",
			"metadata": meta(k8sName(t.Name), merge(r.labels("kafka"), clusterLabel)),
			"spec":     M{"topicName": t.Name, "partitions": t.Partitions, "replicas": rf},
		})
	}
	return r.emit("kafka.yaml", fmt.Sprintf(`Kafka through Strimzi %s: %d KRaft node(s), each controller and broker, and the lab's topics.
Flink and ClickHouse reach it at %s; labgen run --kubernetes at 127.0.0.1:19094 through
kubectl port-forwards of the broker pods (listener "local").`, StrimziVersion, n, Face.Kafka), objs...)
}

// strimziManaged are the broker properties of the lab's Kafka settings
// (render.KafkaSettings) that Strimzi sets itself and refuses in
// spec.kafka.config: node ids, roles, listeners, the quorum, the logs.
var strimziManaged = []string{
	"node.id", "process.roles", "listeners", "advertised.listeners",
	"listener.security.protocol.map", "inter.broker.listener.name",
	"controller.listener.names", "controller.quorum.voters", "log.dirs",
}

// kafkaReplication replicates the internal topics, and the lab's by
// default, over rf of the brokers (compose's single broker has 1).
func kafkaReplication(rf, minISR int) map[string]int {
	return map[string]int{
		"default.replication.factor":                       rf,
		"min.insync.replicas":                              minISR,
		"offsets.topic.replication.factor":                 rf,
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    minISR,
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            minISR,
	}
}

// heapOptions turns "-Xmx160m -Xms160m" into Strimzi's jvmOptions.
func heapOptions(heap string) M {
	m := M{}
	for _, f := range strings.Fields(heap) {
		switch {
		case strings.HasPrefix(f, "-Xmx"):
			m["-Xmx"] = strings.TrimPrefix(f, "-Xmx")
		case strings.HasPrefix(f, "-Xms"):
			m["-Xms"] = strings.TrimPrefix(f, "-Xms")
		}
	}
	return m
}

func merge(ms ...M) M {
	out := M{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// flinkConfigDropped are keys of the lab's Flink settings
// (render.FlinkSettings) the operator sets itself: addresses, bind hosts
// and process sizes (from each cluster's resources).
var flinkConfigDropped = []string{
	"jobmanager.rpc.address", "rest.address", "jobmanager.bind-host",
	"taskmanager.bind-host", "rest.bind-address",
	"jobmanager.memory.process.size", "taskmanager.memory.process.size",
	"sql-gateway.endpoint.rest.address", "sql-gateway.endpoint.rest.bind-address",
}

// flinkSlotsKey is the one setting each cluster gives its own value.
const flinkSlotsKey = "taskmanager.numberOfTaskSlots"

// flinkConfiguration is the lab's Flink settings as the operator takes
// them (string values), with slots per TaskManager.
func (r *renderer) flinkConfiguration(slots int) M {
	conf := M{}
	for k, v := range render.FlinkSettings(r.l).Without(flinkConfigDropped...).Map() {
		conf[k] = v
	}
	conf[flinkSlotsKey] = fmt.Sprint(slots)
	for k, v := range operatorConfiguration {
		conf[k] = v
	}
	return conf
}

// operatorConfiguration is what the Flink Kubernetes Operator needs
// beyond the lab's Flink settings:
//   - Operator 1.10 is built on Flink 1.19, whose names of the checkpoint
//     and savepoint directories are state.checkpoints.dir and
//     state.savepoints.dir; its validator refuses a job with upgradeMode
//     savepoint without them (Flink 1.20 reads them too, as deprecated
//     names of the execution.checkpointing.* keys, with the same values).
//   - Kubernetes HA on the checkpoint volume: a JobManager that loses its
//     pod comes back with the job's latest checkpoint, not empty state.
//   - The operator restarts a job that failed (its default is not to):
//     on a first apply the job may fail before what it reads is up.
//
// TestOperatorRules holds the render to the operator's validator.
var operatorConfiguration = map[string]string{
	"state.checkpoints.dir":                  "file://" + render.CheckpointDir,
	"state.savepoints.dir":                   "file://" + render.CheckpointDir + "/savepoints",
	"high-availability.type":                 "kubernetes",
	"high-availability.storageDir":           "file://" + render.CheckpointDir + "/ha",
	"kubernetes.operator.job.restart.failed": "true",
}

// flinkImage is the lab's Flink image with the SQL runner: the compose
// render's Flink image, plus the runner's jar (flink-image/).
func (r *renderer) flinkImage() string {
	return fmt.Sprintf("labgen-%s-flink-k8s:%s", k8sName(r.l.Name), shortHash(r.flinkImageFiles()))
}

func (r *renderer) flinkImageFiles() map[string][]byte {
	files := map[string][]byte{}
	for p, b := range sqlRunnerFiles(r.baseFlinkImage()) {
		files[p] = b
	}
	return files
}

// baseFlinkImage is the image compose builds from flink/.
func (r *renderer) baseFlinkImage() string { return r.services["jobmanager"].Image }

// flinkPod is the pod template of a Flink cluster of the lab: the .env
// values the job SQL names (CDC users), the checkpoint volume and the
// lake warehouse, and an init container that waits for what the cluster's
// job reads (a first apply starts everything at once).
func (r *renderer) flinkPod(wait M) M {
	c := M{"name": "flink-main-container"}
	if env := containerEnv(withoutRPCAddress(r.services["jobmanager"]), SecretName); len(env) > 0 {
		c["env"] = env
	}
	mounts := []any{M{"name": "checkpoints", "mountPath": render.CheckpointDir}}
	vols := []any{M{"name": "checkpoints", "persistentVolumeClaim": M{"claimName": CheckpointPVC}}}
	if r.l.Stack.HasLakes() {
		mounts = append(mounts, M{"name": "warehouse", "mountPath": render.WarehouseDir})
		vols = append(vols, M{"name": "warehouse", "persistentVolumeClaim": M{"claimName": WarehousePVC}})
	}
	mounts = append(mounts, M{"name": "sql", "mountPath": sqlDir, "readOnly": true})
	vols = append(vols, M{"name": "sql", "configMap": M{"name": FlinkSQL}})
	c["volumeMounts"] = mounts
	spec := M{
		// The checkpoint and warehouse volumes belong to the flink user
		// (uid 9999 in Flink's images).
		"securityContext": M{"fsGroup": 9999},
		"containers":      []any{c},
		"volumes":         vols,
	}
	if wait != nil {
		spec["initContainers"] = []any{wait}
	}
	return M{"apiVersion": "v1", "kind": "Pod", "spec": spec}
}

// waitContainer waits until each address answers a TCP connection and,
// if marker is set, until that file exists (on the warehouse volume):
// Kubernetes starts every pod of a first apply at once, and a job that
// finds its source missing fails.
func (r *renderer) waitContainer(addrs []string, marker string) M {
	var b strings.Builder
	if len(addrs) > 0 {
		fmt.Fprintf(&b, "for a in %s; do\n", strings.Join(addrs, " "))
		b.WriteString("  until (exec 3<>\"/dev/tcp/${a%:*}/${a##*:}\") 2>/dev/null; do echo \"waiting for $a\"; sleep 3; done\n")
		b.WriteString("  echo \"$a answers\"\ndone\n")
	}
	if marker != "" {
		fmt.Fprintf(&b, "until [ -f %s ]; do echo \"waiting for the lake tables (job %s)\"; sleep 3; done\n", marker, r.lakeTablesJob())
	}
	c := M{
		"name":      "wait-for-dependencies",
		"image":     r.flinkImage(),
		"command":   []any{"bash", "-c", b.String()},
		"resources": memoryResources(32),
	}
	if marker != "" {
		c["volumeMounts"] = []any{M{"name": "warehouse", "mountPath": render.WarehouseDir, "readOnly": true}}
	}
	return c
}

// jobNeeds are the addresses of the face the SQL reads or writes, in the
// order of the face.
func jobNeeds(sql string) []string {
	var out []string
	for _, a := range []string{Face.MySQL, Face.Postgres, Face.Kafka, Face.Fluss} {
		host, _, _ := strings.Cut(a, ":")
		if strings.Contains(sql, "'"+host+"'") || strings.Contains(sql, "'"+a+"'") || strings.Contains(sql, a) {
			out = append(out, a)
		}
	}
	return out
}

// withoutRPCAddress drops compose's JOB_MANAGER_RPC_ADDRESS: Flink's
// entrypoint would write it over the address the operator configures.
func withoutRPCAddress(svc service) service {
	env := map[string]string{}
	for k, v := range svc.Environment {
		if k != "JOB_MANAGER_RPC_ADDRESS" {
			env[k] = v
		}
	}
	svc.Environment = env
	return svc
}

// sqlDir is where the job SQL ConfigMap is mounted in Flink's pods.
const sqlDir = "/opt/flink/usrlib/sql"

// flinkDeployment is a FlinkDeployment in standalone mode: the
// operator runs exactly the TaskManagers it is given, as compose does.
func (r *renderer) flinkDeployment(name string, tms, slots int, job M, wait M) M {
	jm, tm := render.FlinkProcessMB(r.l)
	spec := M{
		"image":              r.flinkImage(),
		"imagePullPolicy":    "IfNotPresent",
		"flinkVersion":       FlinkVersion,
		"mode":               "standalone",
		"serviceAccount":     ServiceAccount,
		"flinkConfiguration": r.flinkConfiguration(slots),
		"podTemplate":        r.flinkPod(wait),
		"jobManager":         M{"replicas": 1, "resource": M{"memory": flinkMB(jm), "cpu": 0.5}},
		"taskManager":        M{"replicas": tms, "resource": M{"memory": flinkMB(tm), "cpu": 1}},
	}
	if job != nil {
		spec["job"] = job
	}
	return M{"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
		"metadata": meta(name, r.labels(name)), "spec": spec}
}

// flink renders the session cluster (the SQL gateway's and the bounded
// jobs'), one application cluster per streaming job (the SQL runner with
// the job's SQL, so that the operator tracks it, upgrades it through a
// savepoint and restores it from its checkpoints), the Fluss tiering
// job, and the SQL gateway.
func (r *renderer) flink() error {
	f := r.l.Stack.Flink
	tms := max(1, f.TaskManagers)
	p := max(1, f.Parallelism)
	objs := []M{r.flinkDeployment(SessionName, tms, render.TaskSlots(r.l), nil, nil)}

	sql := M{}
	var jobs []string
	for _, j := range r.l.Jobs {
		if j.Unavailable != "" {
			continue
		}
		key := j.Name + ".sql"
		sql[key] = string(r.face["sql/flink/"+key])
		if j.Mode == schemas.ModeStreaming {
			jobs = append(jobs, j.Name)
		}
	}
	// The lake tables are created once, by a Job of their own (lake.yaml),
	// not by each job's start: Fluss refuses to create a table again once
	// its Paimon table holds data, and an application cluster runs its
	// program again at every JobManager start.
	marker := ""
	if b, ok := r.face[render.LakeTablesFile]; ok {
		sql[base(render.LakeTablesFile)] = string(b)
		marker = r.lakeTablesMarker()
	}
	sort.Strings(jobs)
	jobSlots := (p + tms - 1) / tms
	for _, name := range jobs {
		// As compose's job-submitter: every job after the lake tables.
		jobSQL := r.face[schemas.JobFile(name)]
		objs = append(objs, r.flinkDeployment("job-"+k8sName(name), tms, jobSlots, M{
			"jarURI":      "local://" + sqlRunnerJar,
			"entryClass":  sqlRunnerClass,
			"args":        []any{sqlDir + "/" + name + ".sql"},
			"parallelism": p,
			"upgradeMode": "savepoint",
			"state":       "running",
		}, r.waitContainer(jobNeeds(string(jobSQL)), marker)))
	}
	if r.l.Stack.Fluss != nil {
		jar, err := render.TieringJar(r.l)
		if err != nil {
			return err
		}
		fl := r.l.Stack.Fluss
		objs = append(objs, r.flinkDeployment("tiering", 1, 1, M{
			"jarURI": "local://" + jar,
			"args": []any{"--fluss.bootstrap.servers", Face.Fluss, "--datalake.format", fl.Lake,
				"--datalake." + fl.Lake + ".metastore", "filesystem",
				"--datalake." + fl.Lake + ".warehouse", Face.PaimonWarehouse()},
			"parallelism": 1,
			"upgradeMode": "savepoint",
			"state":       "running",
		}, r.waitContainer([]string{Face.Fluss}, "")))
	}
	if err := r.emit("flink-sql.yaml", "The lab's Flink SQL (Kubernetes face): each streaming job's FlinkDeployment runs its file through the SQL runner.",
		M{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(FlinkSQL, r.labels("flink")), "data": sql}); err != nil {
		return err
	}
	comment := fmt.Sprintf(`Flink through the Flink Kubernetes Operator %s (standalone mode):
the session cluster %q (%d TaskManager(s), %d slot(s) each) runs what the SQL gateway submits;
each streaming job is an application cluster of its own, tracked, upgraded (savepoint) and
restored from its checkpoints by the operator.`, FlinkOperatorVersion, SessionName, tms, render.TaskSlots(r.l))
	if err := r.emit("flink.yaml", comment, objs...); err != nil {
		return err
	}
	for p, b := range r.flinkImageFiles() {
		r.out[Dir+"flink-image/"+p] = b
	}
	if marker != "" {
		if err := r.lakeTables(marker); err != nil {
			return err
		}
	}
	return r.gateway()
}

// gateway is the SQL gateway as a Deployment of its own against the
// session cluster's REST Service. The operator does not track what it
// submits.
func (r *renderer) gateway() error {
	svc := r.services["sql-gateway"]
	c := M{
		"name":  "sql-gateway",
		"image": r.flinkImage(),
		"command": []any{"/opt/flink/bin/sql-gateway.sh", "start-foreground",
			"-Drest.address=" + SessionName + "-rest", "-Drest.port=8081",
			"-Dsql-gateway.endpoint.rest.address=0.0.0.0", "-Dsql-gateway.endpoint.rest.bind-address=0.0.0.0",
			"-Dsql-gateway.endpoint.rest.port=8083"},
		"env":            containerEnv(withoutRPCAddress(svc), SecretName),
		"ports":          []any{M{"name": "rest", "containerPort": 8083}},
		"resources":      memoryResources(r.memory["sql-gateway"]),
		"readinessProbe": M{"httpGet": M{"path": "/v1/info", "port": 8083}, "periodSeconds": 5, "failureThreshold": 24},
	}
	pod := M{"containers": []any{c}}
	if r.l.Stack.HasLakes() {
		// As in compose: catalogs opened in a gateway session (Iceberg's
		// hadoop catalog) read and write the shared warehouse.
		c["volumeMounts"] = []any{M{"name": "warehouse", "mountPath": render.WarehouseDir}}
		pod["volumes"] = []any{M{"name": "warehouse", "persistentVolumeClaim": M{"claimName": WarehousePVC}}}
		pod["securityContext"] = M{"fsGroup": 9999}
	}
	dep := r.deployment("sql-gateway", pod)
	return r.emit("sql-gateway.yaml", "Flink's SQL gateway against the session cluster; the operator does not track the jobs it submits.",
		dep, r.service("sql-gateway", []port{{"rest", 8083}}, false))
}

// lakeTablesJob names the Job that creates the lake tables; the name
// carries the hash of their DDL, so that a render with other tables is a
// new Job (a Job's pod template cannot change).
func (r *renderer) lakeTablesJob() string {
	return "lake-tables-" + shortHash(map[string][]byte{"sql": r.face[render.LakeTablesFile]})[:8]
}

// lakeTablesMarker is the file the Job leaves on the warehouse volume
// once every lake table exists; the jobs' init containers wait for it.
func (r *renderer) lakeTablesMarker() string {
	return render.WarehouseDir + "/.labgen/" + r.lakeTablesJob()
}

// lakeTables is the Job that creates the lake tables their catalogs lack
// (the SQL runner's --create-missing, as labgen run and the compose
// lab's scripts do), once, after Fluss answers.
func (r *renderer) lakeTables(marker string) error {
	script := fmt.Sprintf(`java -Xmx256m -XX:MaxMetaspaceSize=128m -cp "/opt/flink/lib/*:%s" %s --create-missing %s/%s
mkdir -p %s && touch %s`, sqlRunnerJar, sqlRunnerClass, sqlDir, base(render.LakeTablesFile), path.Dir(marker), marker)
	c := M{
		"name":    "lake-tables",
		"image":   r.flinkImage(),
		"command": []any{"bash", "-ec", script},
		"volumeMounts": []any{
			M{"name": "warehouse", "mountPath": render.WarehouseDir},
			M{"name": "sql", "mountPath": sqlDir, "readOnly": true},
		},
		"resources": memoryResources(512),
	}
	if env := containerEnv(withoutRPCAddress(r.services["jobmanager"]), SecretName); len(env) > 0 {
		c["env"] = env
	}
	pod := M{
		"restartPolicy": "OnFailure",
		// As the flink user: the tables' files on the warehouse are the
		// jobs' to write.
		"securityContext": M{"runAsUser": 9999, "runAsGroup": 9999, "fsGroup": 9999},
		"initContainers":  []any{r.waitContainer([]string{Face.Fluss}, "")},
		"containers":      []any{c},
		"volumes": []any{
			M{"name": "warehouse", "persistentVolumeClaim": M{"claimName": WarehousePVC}},
			M{"name": "sql", "configMap": M{"name": FlinkSQL}},
		},
	}
	name := r.lakeTablesJob()
	return r.emit("lake-tables.yaml", "The lake tables, created once where their catalogs lack them (Fluss refuses a second CREATE once a table's lake holds data); the jobs wait for the file it leaves.",
		M{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name, r.labels("lake-tables")),
			"spec": M{"backoffLimit": 20, "template": M{"metadata": M{"labels": r.labels("lake-tables")}, "spec": pod}}})
}
