package schemas

import "github.com/hashicorp/hcl/v2"

// DefaultIcebergVersion is the Iceberg Flink runtime's version.
const DefaultIcebergVersion = "1.10.1"

// Iceberg is the independent lake table written by Flink. It runs no
// service of its own: Flink writes it into the warehouse.
type Iceberg struct {
	Version   string    `json:"version"`
	Catalog   string    `json:"catalog"`
	Database  string    `json:"database"`
	DeclRange hcl.Range `json:"-"`
}

var icebergComponent = &ComponentDesc{
	Name: "iceberg", Title: "Iceberg",
	Present: func(s *Stack) bool { return s.Iceberg != nil },
	schema:  componentSchema("version", "catalog", "database"),
	decode: func(d *decoder, st *Stack, b *hcl.Block, c *hcl.BodyContent) {
		at := c.Attributes
		st.Iceberg = &Iceberg{
			Version:   orDefault(d.version(at["version"]), DefaultIcebergVersion),
			Catalog:   d.oneOf(at["catalog"], "hadoop", "hadoop"),
			Database:  orDefault(d.identifier(at["database"]), "lab"),
			DeclRange: b.DefRange,
		}
	},
}
