package schemas

import (
	"regexp"

	"github.com/distribution/reference"
	"github.com/hashicorp/hcl/v2"
)

// componentSchema is a stack block's body: its attributes and enabled.
// Each component's defaults (versions, images, ports) are in its own file,
// chosen to fit together (see the stack reference in the README); a lab
// overrides any of them.
func componentSchema(attrs ...string) *hcl.BodySchema {
	s := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enabled"}}}
	for _, a := range attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	return s
}

// stackSchema admits a block per component of the registry.
var stackSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, c := range Components {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: c})
	}
	return s
}()

func (d *decoder) decodeStack(b *hcl.Block) *Stack {
	st := &Stack{DeclRange: b.DefRange}
	content, diags := b.Body.Content(stackSchema)
	d.diags = append(d.diags, diags...)
	seen := map[string]hcl.Range{}
	for _, cb := range content.Blocks {
		if prev, ok := seen[cb.Type]; ok {
			d.errorf(cb.DefRange, "Duplicate component", "The stack already declares %s at %s.", cb.Type, prev)
			continue
		}
		seen[cb.Type] = cb.DefRange
		d.decodeComponent(st, cb)
	}
	return st
}

// component decodes a component's body and its enabled flag; it returns
// nil when the component is switched off.
func (d *decoder) component(st *Stack, b *hcl.Block, schema *hcl.BodySchema) *hcl.BodyContent {
	content, diags := b.Body.Content(schema)
	d.diags = append(d.diags, diags...)
	if !d.boolean(content.Attributes["enabled"], true) {
		st.Disabled = append(st.Disabled, b.Type)
		return nil
	}
	return content
}

func port(d *decoder, a *hcl.Attribute, def int) int {
	p := d.atLeast(a, 1, def)
	if p > 65535 {
		d.errorf(a.Expr.Range(), "Invalid port", "%s must be a TCP port (1-65535), not %d.", a.Name, p)
		return def
	}
	return p
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// decodeComponent decodes a stack block through its registry entry
// (stackSchema admits only the registry's blocks).
func (d *decoder) decodeComponent(st *Stack, b *hcl.Block) {
	c := Component(b.Type)
	if c == nil || c.decode == nil {
		return
	}
	if content := d.component(st, b, c.schema); content != nil {
		c.decode(d, st, b, content)
	}
}

// identifier decodes a string used as an SQL identifier.
func (d *decoder) identifier(a *hcl.Attribute) string {
	s := d.str(a)
	if s != "" && !namePattern.MatchString(s) {
		d.errorf(a.Expr.Range(), "Invalid name", "%s must be lowercase letters, digits and underscores, starting with a letter; %q is not.", a.Name, s)
		return ""
	}
	return s
}

// versionPattern is what a component's version may be: a Docker tag's
// characters, as it becomes one (mysql:VERSION), which every Maven
// release name fits too. Nothing else, as the version is also a line of
// labgen.lock, Dockerfiles and .env.
var versionPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// version decodes a component's version (or zookeeper_version,
// lake_version).
func (d *decoder) version(a *hcl.Attribute) string {
	before := len(d.diags)
	s := d.str(a)
	if s != "" && !versionPattern.MatchString(s) && len(d.diags) == before {
		d.errorf(a.Expr.Range(), "Invalid version", "%s must be a release such as \"8.0.40\" or \"0.9.1-incubating\": letters, digits, '.', '_' and '-', at most 128 of them, as it becomes an image tag and a line of the rendered files; %q is not.", a.Name, s)
		return ""
	}
	return s
}

// image decodes a component's image: a Docker image reference, as
// compose, Kubernetes and the Dockerfiles write it, one line of them.
func (d *decoder) image(a *hcl.Attribute) string {
	before := len(d.diags)
	s := d.str(a)
	if s == "" || len(d.diags) > before {
		return s
	}
	if _, err := reference.ParseNormalizedNamed(s); err != nil {
		d.errorf(a.Expr.Range(), "Invalid image", "%s must be an image reference such as \"mysql:8.0.40\" or \"registry.example.com/team/flink:1.20.1\" (%s); %q is not.", a.Name, err, s)
		return ""
	}
	return s
}
