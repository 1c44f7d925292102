package kube

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/labgen/labgen/internal/kubecheck"
	"github.com/labgen/labgen/render"
)

// overlayRegistry is the registry of the test's overlay.
const overlayRegistry = "registry.example.com/team"

// overlay is what a user's overlay of the base does: another registry for
// the lab's images, a name prefix and another namespace.
func overlay(t *testing.T, files render.Files, prefix string) []byte {
	t.Helper()
	var k struct {
		Images []struct {
			Name   string `json:"name"`
			NewTag string `json:"newTag"`
		} `json:"images"`
	}
	if err := yaml.Unmarshal(files["kustomization.yaml"], &k); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("resources:\n- ../base\nnamespace: team-lab\n")
	if prefix != "" {
		fmt.Fprintf(&b, "namePrefix: %s\n", prefix)
	}
	b.WriteString("images:\n")
	for _, im := range k.Images {
		fmt.Fprintf(&b, "- name: %s\n  newName: %s/%s\n  newTag: %s\n", im.Name, overlayRegistry, im.Name, im.NewTag)
	}
	return []byte(b.String())
}

// references walks an object for the names it refers to: Secrets,
// ConfigMaps and claims (in any pod spec, the FlinkDeployments' pod
// templates included) and images.
func references(v any, refs map[string][]string) {
	switch v := v.(type) {
	case map[string]any:
		name := func(m any, key string) string {
			mm, _ := m.(map[string]any)
			s, _ := mm[key].(string)
			return s
		}
		for k, x := range v {
			switch k {
			case "secretKeyRef", "secretRef":
				refs["Secret"] = append(refs["Secret"], name(x, "name"))
			case "configMapKeyRef", "configMapRef", "configMap":
				refs["ConfigMap"] = append(refs["ConfigMap"], name(x, "name"))
			case "persistentVolumeClaim":
				refs["PersistentVolumeClaim"] = append(refs["PersistentVolumeClaim"], name(x, "claimName"))
			case "image":
				if s, ok := x.(string); ok {
					refs["image"] = append(refs["image"], s)
				}
			}
			references(x, refs)
		}
	case []any:
		for _, x := range v {
			references(x, refs)
		}
	}
}

// checkResolves lists what the built objects refer to and do not hold:
// a Secret, ConfigMap or claim by a name no object has, a StatefulSet's
// Service, and an image of the lab's own that the overlay's registry did
// not reach.
func checkResolves(objs []map[string]any, ownImages []string) []string {
	have := map[string]bool{}
	for _, o := range objs {
		have[o["kind"].(string)+"/"+at(o, "metadata")["name"].(string)] = true
	}
	var bad []string
	for _, o := range objs {
		refs := map[string][]string{}
		references(o, refs)
		for _, kind := range []string{"Secret", "ConfigMap", "PersistentVolumeClaim"} {
			for _, n := range refs[kind] {
				if !have[kind+"/"+n] {
					bad = append(bad, fmt.Sprintf("%s names %s %q, which the build does not hold", objName(o), kind, n))
				}
			}
		}
		for _, im := range refs["image"] {
			for _, own := range ownImages {
				if strings.HasPrefix(im, own+":") || im == own {
					bad = append(bad, fmt.Sprintf("%s pulls %s, not from the overlay's registry", objName(o), im))
				}
			}
		}
		if o["kind"] == "StatefulSet" {
			if svc, _ := at(o, "spec")["serviceName"].(string); !have["Service/"+svc] {
				bad = append(bad, fmt.Sprintf("%s names Service %q, which the build does not hold", objName(o), svc))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// Every render, built under an overlay (another registry, a name prefix,
// another namespace) as a user builds theirs: every Secret, ConfigMap and
// claim a pod names is in the build (the Secret carries kustomize's hash
// suffix, the prefix renames everything), every image of the lab's own
// comes from the registry, the FlinkDeployments' included; and without
// the base's kustomize configuration the same check fails.
func TestOverlayResolves(t *testing.T) {
	for _, v := range validationVariants {
		t.Run(v.name, func(t *testing.T) {
			files := renderVariant(t, v)
			var own []string
			for _, im := range strings.Split(string(files["kustomization.yaml"]), "\n") {
				if n, ok := strings.CutPrefix(strings.TrimSpace(im), "- name: "); ok {
					own = append(own, n)
				}
			}
			if len(own) == 0 {
				t.Fatal("the kustomization lists no images")
			}
			objs, err := kubecheck.BuildOverlay(files, overlay(t, files, "team-"))
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range checkResolves(objs, own) {
				t.Error(bad)
			}
			flink := 0
			for _, o := range objs {
				if o["kind"] == "FlinkDeployment" {
					flink++
				}
			}
			if v.lab != "sensors" && flink == 0 {
				t.Fatal("no FlinkDeployment in the build")
			}

			// The check can fail: the base without its configuration.
			bare := render.Files{}
			for p, b := range files {
				bare[p] = b
			}
			bare["kustomization.yaml"] = []byte(strings.Replace(string(files["kustomization.yaml"]), "configurations:\n- "+KustomizeConfig+"\n", "", 1))
			if string(bare["kustomization.yaml"]) == string(files["kustomization.yaml"]) {
				t.Fatal("the kustomization has no configurations entry to take out")
			}
			objs, err = kubecheck.BuildOverlay(bare, overlay(t, files, "team-"))
			if err != nil {
				t.Fatal(err)
			}
			if flink > 0 && len(checkResolves(objs, own)) == 0 {
				t.Error("without the kustomize configuration the FlinkDeployments still resolve: the check sees nothing")
			}
		})
	}
}

// The lab's services find each other by their Services' names, which a
// namespace overlay keeps (a name prefix renames them and so does not
// work: the README says so): every Service the Kubernetes face names and
// the base creates is in the namespace overlay's build.
func TestNamespaceOverlayKeepsAddresses(t *testing.T) {
	files := renderVariant(t, goldens[0])
	objs, err := kubecheck.BuildOverlay(files, overlay(t, files, ""))
	if err != nil {
		t.Fatal(err)
	}
	services := map[string]bool{}
	for _, o := range objs {
		if o["kind"] == "Service" {
			services[at(o, "metadata")["name"].(string)] = true
		}
	}
	// Kafka's bootstrap and the Flink clusters' REST Services are the
	// operators'.
	for _, addr := range []string{Face.MySQL, Face.Fluss, "clickhouse:8123", "sql-gateway:8083"} {
		host, _, _ := strings.Cut(addr, ":")
		if !services[host] {
			t.Errorf("the face names %s; the build has no Service %s", addr, host)
		}
	}
}
