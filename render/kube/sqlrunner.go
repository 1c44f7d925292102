package kube

import (
	_ "embed"
	"strings"
)

// The SQL runner is the Flink Kubernetes Operator's pattern for SQL jobs
// (its flink-sql-runner-example): Flink 1.20 cannot run an SQL script as
// an application, so a small Java program runs the script's statements
// through a TableEnvironment, and the operator runs that program as the
// job of an application cluster.
const (
	sqlRunnerJar   = "/opt/flink/usrlib/sql-runner.jar"
	sqlRunnerClass = "labgen.SqlRunner"
)

//go:embed sqlrunner/SqlRunner.java
var sqlRunnerJava []byte

//go:embed sqlrunner/pom.xml
var sqlRunnerPOM []byte

// sqlRunnerFiles are the build context of the lab's Flink image for
// Kubernetes: the compose render's Flink image plus the runner's jar.
func sqlRunnerFiles(baseImage string) map[string][]byte {
	dockerfile := `# The lab's Flink image for Kubernetes: the compose render's Flink image
# (build it first: docker compose build jobmanager, in the lab directory)
# with the SQL runner, which runs a job's SQL as an application.
FROM maven:3.9-eclipse-temurin-17 AS runner
WORKDIR /src
COPY pom.xml .
COPY SqlRunner.java src/main/java/labgen/SqlRunner.java
RUN mvn -B -q package

FROM ` + baseImage + `
COPY --from=runner --chown=flink:flink /src/target/sql-runner.jar ` + sqlRunnerJar + `
`
	return map[string][]byte{
		"Dockerfile":     []byte(dockerfile),
		"pom.xml":        sqlRunnerPOM,
		"SqlRunner.java": sqlRunnerJava,
	}
}

// SQLRunnerSource is the runner's Java source (tests compile it).
func SQLRunnerSource() string { return strings.Clone(string(sqlRunnerJava)) }
