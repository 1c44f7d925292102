package schemas

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// DefaultMySQLVersion is the mysql image's tag.
const DefaultMySQLVersion = "8.0.40"

// MySQL is the source database. Passwords are not part of the model: the
// rendered .env holds them and the runtime reads them from there.
type MySQL struct {
	Version   string    `json:"version"`
	Image     string    `json:"image"`
	Database  string    `json:"database"`
	Port      int       `json:"port"`
	DeclRange hcl.Range `json:"-"`
}

var mysqlComponent = &ComponentDesc{
	Name: "mysql", Title: "MySQL",
	Present: func(s *Stack) bool { return s.MySQL != nil },
	Services: []ServiceDesc{{Name: "mysql", Step: true,
		Memory: fixed(Memory{MB: 320, Why: "MySQL 8 with its 128 MB InnoDB buffer pool; performance_schema off (it takes about 200 MB more)"}),
		// It reads a table the init scripts create, as the reader user
		// they create, over TCP: the temporary server of the first start
		// listens on the socket only.
		Health: &Health{Test: func(l *Lab) string {
			probe := "SELECT 1"
			for _, t := range l.Tables {
				if st := t.Store(StoreMySQL); st != nil {
					probe = fmt.Sprintf("SELECT 1 FROM %s.%s LIMIT 1", l.Stack.MySQL.Database, st.Name)
					break
				}
			}
			return fmt.Sprintf(`MYSQL_PWD="$$MYSQL_READER_PASSWORD" mysql --protocol=TCP -h 127.0.0.1 -u "$$MYSQL_READER_USER" -e "%s" >/dev/null`, probe)
		}, Interval: sec(5), StartPeriod: sec(60), Retries: 30},
		Listens: []ContainerPort{{"mysql", 3306}},
	}},
	Images: func(l *Lab) []Image { return images("mysql", l.Stack.MySQL.Image) },
	Ports:  func(s *Stack) map[string]int { return map[string]int{"mysql": s.MySQL.Port} },
	schema: componentSchema("version", "image", "database", "port"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		v := orDefault(d.version(at["version"]), DefaultMySQLVersion)
		st.MySQL = &MySQL{
			Version:   v,
			Image:     orDefault(d.image(at["image"]), "mysql:"+v),
			Database:  orDefault(d.identifier(at["database"]), "shop"),
			Port:      port(d, at["port"], 3306),
			DeclRange: b.DefRange,
		}
	},
}
