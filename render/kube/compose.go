package kube

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// service is what the Kubernetes face reads of a compose service: the
// compose render decides images, commands, environment, volumes and
// health checks once, and each Kubernetes workload is that service in
// another form.
type service struct {
	Image       string            `json:"image"`
	Command     []string          `json:"command"`
	Entrypoint  []string          `json:"entrypoint"`
	Environment map[string]string `json:"environment"`
	Volumes     []struct {
		Type   string `json:"type"`
		Source string `json:"source"`
		Target string `json:"target"`
	} `json:"volumes"`
	Ports []struct {
		Target int `json:"target"`
	} `json:"ports"`
	HealthCheck *struct {
		Test []string `json:"test"`
	} `json:"healthcheck"`
}

type composeFile struct {
	Services map[string]service `json:"services"`
}

func readCompose(b []byte) (map[string]service, error) {
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("kube: reading compose.yaml: %w", err)
	}
	return c.Services, nil
}

// envRef matches compose's ${NAME}, which compose fills from .env.
var envRef = regexp.MustCompile(`\$\{([A-Z0-9_]+)\}`)

// unescape turns a compose string into what the container sees: $$ is a
// literal $ (the container's shell expands it), ${NAME} a value of .env,
// which Kubernetes expands as $(NAME) from an earlier variable of the
// container's environment.
func unescape(s string) string {
	const dollar = "\x00"
	s = strings.ReplaceAll(s, "$$", dollar)
	s = envRef.ReplaceAllString(s, "$$($1)")
	return strings.ReplaceAll(s, dollar, "$")
}

// secretRefs lists the .env names a service's strings refer to, sorted.
func secretRefs(strs ...string) []string {
	seen := map[string]bool{}
	for _, s := range strs {
		for _, m := range envRef.FindAllStringSubmatch(strings.ReplaceAll(s, "$$", ""), -1) {
			seen[m[1]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// containerEnv is a service's environment: first every .env value it
// refers to, from the lab's Secret, then its own variables in name order
// (an own variable that is exactly ${NAME} of the same name is the
// Secret's value itself).
func containerEnv(svc service, secret string, extra ...string) []any {
	var all []string
	for _, v := range svc.Environment {
		all = append(all, v)
	}
	all = append(all, svc.Command...)
	all = append(all, svc.Entrypoint...)
	all = append(all, extra...)
	var out []any
	refs := secretRefs(all...)
	fromSecret := map[string]bool{}
	for _, n := range refs {
		fromSecret[n] = true
		out = append(out, M{"name": n, "valueFrom": M{"secretKeyRef": M{"name": secret, "key": n}}})
	}
	names := make([]string, 0, len(svc.Environment))
	for n := range svc.Environment {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := svc.Environment[n]
		if fromSecret[n] && v == "${"+n+"}" {
			continue
		}
		out = append(out, M{"name": n, "value": unescape(v)})
	}
	return out
}

func unescapeAll(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = unescape(x)
	}
	return out
}
