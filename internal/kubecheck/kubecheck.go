// Package kubecheck validates Kubernetes objects offline, as an API
// server would before storing them: custom resources against their
// CustomResourceDefinitions (structural schema, unknown fields pruned and
// reported, required fields, enums, types, the CEL rules), built-in kinds
// against Kubernetes' own OpenAPI v3 documents (unknown fields, required
// fields, enums, types). It is strict: an unknown field is an error, as
// with kubectl's --validate=strict. Kubernetes' OpenAPI documents carry
// no enums and no rules beyond types and required fields: an invalid
// value of a built-in kind (an unknown imagePullPolicy) is the API
// server's to reject (the server tests).
package kubecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Checker holds the schemas of the kinds it knows, by
// "group/version/Kind" (core kinds: "/v1/Kind").
type Checker struct {
	crds     map[string]*crdVersion
	builtins map[string]*spec.Schema
}

type crdVersion struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

func key(apiVersion, kind string) string {
	if !strings.Contains(apiVersion, "/") {
		apiVersion = "/" + apiVersion
	}
	return apiVersion + "/" + kind
}

// New reads the CRDs (YAML files, one CRD each) of crdDir and the
// OpenAPI v3 documents of Kubernetes (api/openapi-spec/v3 of
// k8s.io/kubernetes) in openapiDir for the groups named.
func New(crdDir, openapiDir string, groups ...string) (*Checker, error) {
	c := &Checker{crds: map[string]*crdVersion{}, builtins: map[string]*spec.Schema{}}
	crds, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("kubecheck: no CRDs in %s", crdDir)
	}
	for _, f := range crds {
		if err := c.addCRD(f); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		if err := c.addOpenAPI(filepath.Join(openapiDir, g)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Checker) addCRD(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(b, &crd); err != nil {
		return fmt.Errorf("kubecheck: %s: %w", path, err)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return fmt.Errorf("kubecheck: %s %s: %w", crd.Name, v.Name, err)
		}
		ss, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return fmt.Errorf("kubecheck: %s %s is not structural: %w", crd.Name, v.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
		if err != nil {
			return fmt.Errorf("kubecheck: %s %s: %w", crd.Name, v.Name, err)
		}
		c.crds[key(crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind)] = &crdVersion{
			structural: ss,
			validator:  validator,
			cel:        cel.NewValidator(ss, true, celconfig.PerCallLimit),
		}
	}
	return nil
}

// addOpenAPI reads one of Kubernetes' OpenAPI v3 documents and keeps the
// schema of each kind it defines, its references expanded.
func (c *Checker) addOpenAPI(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("kubecheck: %s: %w", path, err)
	}
	if doc.Components == nil {
		return fmt.Errorf("kubecheck: %s has no schemas", path)
	}
	for _, s := range doc.Components.Schemas {
		gvks, _ := s.Extensions["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m, _ := g.(map[string]any)
			group, _ := m["group"].(string)
			version, _ := m["version"].(string)
			kind, _ := m["kind"].(string)
			apiVersion := version
			if group != "" {
				apiVersion = group + "/" + version
			}
			c.builtins[key(apiVersion, kind)] = expand(s, doc.Components.Schemas, nil)
		}
	}
	return nil
}

// expand replaces every $ref of s by the schema it names (kube-openapi's
// validator takes no references). A reference back to a schema being
// expanded (a recursive type) becomes an empty schema.
func expand(s *spec.Schema, all map[string]*spec.Schema, path []string) *spec.Schema {
	if s == nil {
		return nil
	}
	if ref := s.Ref.String(); ref != "" {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		for _, p := range path {
			if p == name {
				return &spec.Schema{}
			}
		}
		target, ok := all[name]
		if !ok {
			return &spec.Schema{}
		}
		return expand(target, all, append(path, name))
	}
	out := *s
	if out.Format == "int-or-string" {
		// Its oneOf says what it takes; the validator would read the
		// format as a string's.
		out.Format = ""
	}
	out.Properties = nil
	if s.Properties != nil {
		out.Properties = map[string]spec.Schema{}
		for k, p := range s.Properties {
			out.Properties[k] = *expand(&p, all, path)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		out.Items = &spec.SchemaOrArray{Schema: expand(s.Items.Schema, all, path)}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		out.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: expand(s.AdditionalProperties.Schema, all, path)}
	}
	// Kubernetes wraps a referenced type with a default in allOf: fold it.
	if len(s.AllOf) == 1 && len(s.Properties) == 0 && s.Type == nil {
		inner := expand(&s.AllOf[0], all, path)
		merged := *inner
		if s.Description != "" {
			merged.Description = s.Description
		}
		merged.Default = s.Default
		return &merged
	}
	out.AllOf = nil
	for _, a := range s.AllOf {
		out.AllOf = append(out.AllOf, *expand(&a, all, path))
	}
	return &out
}

// Check validates one object and returns what is wrong with it, each
// error naming the field.
func (c *Checker) Check(obj map[string]any) []error {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return []error{fmt.Errorf("an object without apiVersion or kind")}
	}
	k := key(apiVersion, kind)
	if v, ok := c.crds[k]; ok {
		return v.check(obj)
	}
	if s, ok := c.builtins[k]; ok {
		return checkBuiltin(s, obj)
	}
	return []error{fmt.Errorf("%s %s: no schema for this kind", apiVersion, kind)}
}

func (v *crdVersion) check(obj map[string]any) []error {
	var errs []error
	copied := DeepCopy(obj).(map[string]any)
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	for _, p := range pruning.PruneWithOptions(copied, v.structural, true, opts) {
		errs = append(errs, fmt.Errorf("unknown field %q", p))
	}
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, v.validator) {
		errs = append(errs, e)
	}
	if v.cel != nil {
		celErrs, _ := v.cel.Validate(context.Background(), field.NewPath(""), v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		for _, e := range celErrs {
			errs = append(errs, e)
		}
	}
	return errs
}

func checkBuiltin(s *spec.Schema, obj map[string]any) []error {
	var errs []error
	for _, p := range unknownFields(s, obj, "") {
		errs = append(errs, fmt.Errorf("unknown field %q", p))
	}
	res := validate.NewSchemaValidator(s, nil, "", strfmt.Default).Validate(obj)
	for _, e := range res.Errors {
		errs = append(errs, e)
	}
	return errs
}

// unknownFields lists the fields of v its schema does not declare.
func unknownFields(s *spec.Schema, v any, path string) []string {
	if s == nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			sub := path + "." + k
			if p, ok := s.Properties[k]; ok {
				out = append(out, unknownFields(&p, v[k], sub)...)
				continue
			}
			if s.AdditionalProperties != nil {
				out = append(out, unknownFields(s.AdditionalProperties.Schema, v[k], sub)...)
				continue
			}
			if len(s.Properties) > 0 {
				out = append(out, strings.TrimPrefix(sub, "."))
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, e := range v {
				out = append(out, unknownFields(s.Items.Schema, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return out
}

// DeepCopy copies a decoded object (maps and slices all the way down),
// so that a test can mutate the copy.
func DeepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}

// Build runs kustomize over a base held in memory (relative paths to
// contents) and returns its objects, decoded as the API server decodes
// them (whole numbers as int64).
func Build(files map[string][]byte) ([]map[string]any, error) {
	return BuildOverlay(files, nil)
}

// BuildOverlay is Build of an overlay (its kustomization.yaml, which
// names the base as ../base) over the base files; a nil overlay builds
// the base itself.
func BuildOverlay(files map[string][]byte, overlay []byte) ([]map[string]any, error) {
	fs := filesys.MakeFsInMemory()
	for p, b := range files {
		full := filepath.Join("/base", p)
		if err := fs.MkdirAll(filepath.Dir(full)); err != nil {
			return nil, err
		}
		if err := fs.WriteFile(full, b); err != nil {
			return nil, err
		}
	}
	root := "/base"
	if overlay != nil {
		root = "/overlay"
		if err := fs.MkdirAll(root); err != nil {
			return nil, err
		}
		if err := fs.WriteFile(root+"/kustomization.yaml", overlay); err != nil {
			return nil, err
		}
	}
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, root)
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	var out []map[string]any
	for _, r := range rm.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, err
		}
		obj, err := Decode(y)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}

// Decode reads one object from YAML as the API server does.
func Decode(y []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}
