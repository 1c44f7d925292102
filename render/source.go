package render

import (
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/labgen/labgen/schemas"
)

// sourceDB is what render writes for a source database: a store the
// producer writes and Flink's CDC sources read (schemas.IsSourceStore).
// Each is described in its own file (mysql.go, postgres.go) and listed
// once in sourceDBs; the .env file, the face's files, compose's services
// and flink-jobs.sh ask them instead of knowing which databases exist.
type sourceDB struct {
	// component is its stack block and compose service ("mysql"); its
	// files live in sql/<component>/.
	component string
	// env writes its users and passwords into .env.
	env func(kv func(k, v string))
	// cdc is its CDC user: Flink's containers get it from .env, and job
	// SQL holds it as ${NAME} placeholders that flink-jobs.sh fills.
	cdc cdcUser
	// schema creates its tables (schema.sql); users creates the lab's
	// users as a face reaches the database (users.sql).
	schema func(l *schemas.Lab) []byte
	users  func(l *schemas.Lab, f Face) []byte
	// initScript creates the users in the compose service on its first
	// start (init-users.sh).
	initScript func(l *schemas.Lab) ([]byte, error)
	service    func(l *schemas.Lab) types.ServiceConfig
	// producer is how labgen produce reaches it inside the stack: the
	// flag that names it, and the environment variable the flag's value
	// comes from with that value.
	producer func(l *schemas.Lab) (flag, envName, value string)
	// console adds what the console needs to reach it read-only to the
	// console's environment, and gives the console's flag for it.
	console func(l *schemas.Lab, m types.MappingWithEquals) (types.MappingWithEquals, string)
}

// sourceDBs are the source databases, in the registry's order.
var sourceDBs = []*sourceDB{mysqlDB, postgresDB}

// sources are the source databases the stack runs.
func sources(l *schemas.Lab) []*sourceDB {
	var out []*sourceDB
	for _, d := range sourceDBs {
		if l.Stack.Has(d.component) {
			out = append(out, d)
		}
	}
	return out
}

// producerSource is the source database the producer writes, or nil.
func producerSource(l *schemas.Lab) *sourceDB {
	for _, d := range sourceDBs {
		if d.component == l.SourceStore() {
			return d
		}
	}
	return nil
}

// cdcUser names the .env variables of a CDC user's name and password.
type cdcUser struct{ User, Password string }

// cdcUsers are the CDC users of the stack's source databases.
func cdcUsers(l *schemas.Lab) []cdcUser {
	var out []cdcUser
	for _, d := range sources(l) {
		out = append(out, d.cdc)
	}
	return out
}
