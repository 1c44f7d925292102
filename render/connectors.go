package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// MavenCentral is where the Flink image downloads its connector jars.
const MavenCentral = "https://repo1.maven.org/maven2"

// jarSHA256 pins every connector jar the Flink image may add, by Maven
// coordinates. Each checksum was computed from the jar itself: fetched once
// from Maven Central with
//
//	mvn dependency:get -Dartifact=GROUP:ARTIFACT:VERSION -Dtransitive=false
//
// then `sha256sum ~/.m2/repository/<group path>/<artifact>/<version>/<artifact>-<version>.jar`
// (the repository's published .sha1 of each jar matched too). To pin
// another version, do the same and add a row: render refuses a version it
// has no checksum for.
var jarSHA256 = map[string]string{
	// MySQL CDC; since CDC 3.1 the JDBC driver is not bundled.
	"org.apache.flink:flink-sql-connector-mysql-cdc:3.5.0": "aa1946f26be3c831f03e22b3f6b4f2ad70b02878817b8648177c3fe1c8d1f440",
	"com.mysql:mysql-connector-j:8.4.0":                    "d77962877d010777cff997015da90ee689f0f4bb76848340e1488f2b83332af5",
	// PostgreSQL CDC; the SQL connector bundles PostgreSQL's JDBC driver.
	// Computed with sha256sum from Maven Central's jar (its .sha1 matched).
	"org.apache.flink:flink-sql-connector-postgres-cdc:3.5.0": "8c5b78d279a51676ad27e9730db37477c1cbf6691dd2382c6fa653b3fe293262",
	// JDBC, for batch jobs reading MySQL or PostgreSQL: the bundle of the
	// core and every dialect ("Flink : Connectors : JDBC : Shaded"); the
	// drivers are those above (PostgreSQL's inside the CDC connector).
	// Computed with sha256sum from Maven Central's jar (its .sha1 matched).
	"org.apache.flink:flink-connector-jdbc:3.3.0-1.20": "50d243cf0e1aac67c2c81c9fb2e9b32bb7d7124b9594df009efa8122e3df1c75",
	// Kafka and upsert-kafka, unshaded, with the kafka-clients and Guava
	// versions its POM names. The shaded flink-sql-connector-kafka
	// 3.4.0-1.20 is not served by the registry this was pinned from, so its
	// checksum could not be computed; prove/flink verifies the same set.
	"org.apache.flink:flink-connector-kafka:3.4.0-1.20": "0deab094f7f54df9e8cb7c77c15b4392e1f9923f98f8972b4346f6ff384bf5e6",
	"org.apache.kafka:kafka-clients:3.4.0":              "48f38dede69bf2ed3709e270afb6b72fac869651fc258997727dba350333ac64",
	"com.google.guava:guava:32.1.2-jre":                 "bc65dea7cfd9e4dacf8419d8af0e741655857d27885bb35d943d7187fc3a8fce",
	"com.google.guava:failureaccess:1.0.1":              "a171ee4c734dd2da837e4b16be9df4661afab72a41adaf31eb84dfdaf936ca26",
	// Fluss: the Flink connector, the Paimon lake plugin, the tiering job.
	"org.apache.fluss:fluss-flink-1.20:0.9.1-incubating":    "ed7ca16384644eb1da051fa658a2181df3f16c9de869f9edbbe9b4b771e56691",
	"org.apache.fluss:fluss-lake-paimon:0.9.1-incubating":   "b14ba33929f3c2e15d7d2220d1f5337217c74971f3c7e59d33625047ca68192b",
	"org.apache.fluss:fluss-flink-tiering:0.9.1-incubating": "54c2f4125a74bacb304d182760017502225b283b3d7364baa1c783b8f014cb4e",
	"org.apache.paimon:paimon-flink-1.20:1.3.1":             "a333b7a3df6143b782d129895f64575f0007912c4a2c85502d421b8198f42ce1",
	// Iceberg, hadoop catalog.
	"org.apache.iceberg:iceberg-flink-runtime-1.20:1.10.1": "f06b3f2fbd004feeb10adc8957f27d43203a0dc526a9ae2e0a42219fbcdbcfe7",
	// Hadoop classes for the lake catalogs: the shaded Hadoop 3 client
	// (raw hadoop-common breaks Flink 1.20) and the commons-logging it
	// leaves out.
	"org.apache.hadoop:hadoop-client-api:3.3.6":     "f3d2347a6e1c6885d5bcfd4f60c3ac3810ec11068fc161e04329baabf412d963",
	"org.apache.hadoop:hadoop-client-runtime:3.3.6": "15f01bc804294df06d2effc87de363a83cf589f50558bdbf48f72541ad8de854",
	"commons-logging:commons-logging:1.2":           "daddea1ea0be0f56978ab3006b8ac92834afeefbd9b7e4e6316fca57df0fa636",
}

// Connector versions that the lab does not choose; they fit the Flink
// minor version the stack pins (see the stack reference).
const (
	flinkCDCVersion       = "3.5.0"
	mysqlDriverVersion    = "8.4.0"
	kafkaClientsVersion   = "3.4.0"
	guavaVersion          = "32.1.2-jre"
	failureAccessVersion  = "1.0.1"
	hadoopVersion         = "3.3.6"
	commonsLoggingVersion = "1.2"
)

// kafkaConnectorVersions maps a Flink minor version to its Kafka connector.
var kafkaConnectorVersions = map[string]string{"1.20": "3.4.0-1.20"}

// jdbcConnectorVersions maps a Flink minor version to its JDBC connector.
var jdbcConnectorVersions = map[string]string{"1.20": "3.3.0-1.20"}

// readsByJDBC tells whether a batch job of the lab reads a MySQL or
// PostgreSQL store, which it does through the JDBC connector.
func readsByJDBC(l *schemas.Lab) bool {
	for _, j := range l.Jobs {
		if j.Mode != schemas.ModeBatch || j.Unavailable != "" {
			continue
		}
		for _, u := range j.Uses {
			if schemas.IsSourceStore(u.Kind) {
				return true
			}
		}
	}
	return false
}

// Jar is one connector jar of the Flink image.
type Jar struct {
	Group, Artifact, Version string
	// Dir is lib (on Flink's class path) or opt (the tiering job).
	Dir    string
	SHA256 string
}

// Coordinates are the Maven coordinates, GROUP:ARTIFACT:VERSION.
func (j Jar) Coordinates() string { return j.Group + ":" + j.Artifact + ":" + j.Version }

// File is the jar's file name.
func (j Jar) File() string { return j.Artifact + "-" + j.Version + ".jar" }

// Path is where the jar lies in the image, relative to /opt/flink.
func (j Jar) Path() string { return j.Dir + "/" + j.File() }

// URL is the jar on Maven Central.
func (j Jar) URL() string {
	return fmt.Sprintf("%s/%s/%s/%s/%s", MavenCentral, strings.ReplaceAll(j.Group, ".", "/"), j.Artifact, j.Version, j.File())
}

// flinkMinor is "1.20" for "1.20.1".
func flinkMinor(version string) string {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}

// connectorJars lists the jars the lab's Flink image needs, in a fixed
// order: only those of the components the stack runs.
func connectorJars(l *schemas.Lab) ([]Jar, error) {
	s := l.Stack
	if s.Flink == nil {
		return nil, nil
	}
	minor := flinkMinor(s.Flink.Version)
	var out []Jar
	var missing, twice []string
	add := func(dir, group, artifact, version string) {
		j := Jar{Group: group, Artifact: artifact, Version: version, Dir: dir}
		// Fluss' lake and a paimon block both want paimon-flink: one
		// Flink holds one release of it.
		for _, o := range out {
			if o.Group == group && o.Artifact == artifact {
				if o.Version != version {
					twice = append(twice, fmt.Sprintf("%s:%s in %s and %s", group, artifact, o.Version, version))
				}
				return
			}
		}
		j.SHA256 = jarSHA256[j.Coordinates()]
		if j.SHA256 == "" {
			missing = append(missing, j.Coordinates())
		}
		out = append(out, j)
	}
	if s.MySQL != nil {
		add("lib", "org.apache.flink", "flink-sql-connector-mysql-cdc", flinkCDCVersion)
		add("lib", "com.mysql", "mysql-connector-j", mysqlDriverVersion)
	}
	if s.Postgres != nil {
		add("lib", "org.apache.flink", "flink-sql-connector-postgres-cdc", flinkCDCVersion)
	}
	if readsByJDBC(l) {
		v, ok := jdbcConnectorVersions[minor]
		if !ok {
			return nil, fmt.Errorf("no JDBC connector is pinned for Flink %s (labgen pins one for Flink %s)", s.Flink.Version, strings.Join(slices.Sorted(maps.Keys(jdbcConnectorVersions)), ", "))
		}
		add("lib", "org.apache.flink", "flink-connector-jdbc", v)
	}
	if s.Kafka != nil {
		v, ok := kafkaConnectorVersions[minor]
		if !ok {
			return nil, fmt.Errorf("no Kafka connector is pinned for Flink %s (labgen pins one for Flink %s)", s.Flink.Version, strings.Join(slices.Sorted(maps.Keys(kafkaConnectorVersions)), ", "))
		}
		add("lib", "org.apache.flink", "flink-connector-kafka", v)
		add("lib", "org.apache.kafka", "kafka-clients", kafkaClientsVersion)
		add("lib", "com.google.guava", "guava", guavaVersion)
		add("lib", "com.google.guava", "failureaccess", failureAccessVersion)
	}
	if s.Fluss != nil {
		add("lib", "org.apache.fluss", "fluss-flink-"+minor, s.Fluss.Version)
		add("lib", "org.apache.fluss", "fluss-lake-"+s.Fluss.Lake, s.Fluss.Version)
		add("lib", "org.apache.paimon", "paimon-flink-"+minor, s.Fluss.LakeVersion)
		add("opt", "org.apache.fluss", "fluss-flink-tiering", s.Fluss.Version)
	}
	if s.Iceberg != nil {
		add("lib", "org.apache.iceberg", "iceberg-flink-runtime-"+minor, s.Iceberg.Version)
	}
	if s.Paimon != nil {
		add("lib", "org.apache.paimon", "paimon-flink-"+minor, s.Paimon.Version)
	}
	if s.HasLakes() {
		add("lib", "org.apache.hadoop", "hadoop-client-api", hadoopVersion)
		add("lib", "org.apache.hadoop", "hadoop-client-runtime", hadoopVersion)
		add("lib", "commons-logging", "commons-logging", commonsLoggingVersion)
	}
	if len(twice) > 0 {
		return nil, fmt.Errorf("the stack needs two releases of %s (the paimon block's version and Fluss's lake_version must agree)", strings.Join(twice, ", "))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no sha256 is pinned for %s; labgen adds only jars whose checksum it knows (see render/connectors.go)", strings.Join(missing, ", "))
	}
	return out, nil
}

// tieringJar is the Fluss tiering job's jar, if the stack runs Fluss.
func tieringJar(jars []Jar) (Jar, bool) {
	for _, j := range jars {
		if j.Artifact == "fluss-flink-tiering" {
			return j, true
		}
	}
	return Jar{}, false
}
