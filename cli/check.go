package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/enginecheck"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// checkEndpointArgs are addCheckEndpointFlags' flags for a usage line.
const checkEndpointArgs = "[--gateway URL] [--mysql ADDR|URL|DSN] [--postgres ADDR|URL] [--clickhouse ADDR|URL]"

// addCheckEndpointFlags are the endpoint flags the engine check uses
// (validate --engines): the databases and the SQL gateway.
func addCheckEndpointFlags(fs *flag.FlagSet) *endpointFlags {
	f := &endpointFlags{}
	fs.StringVar(&f.mysql, "mysql", "", "MySQL `ADDR`, mysql:// URL or DSN to EXPLAIN presets on (default the lab's)")
	fs.StringVar(&f.postgres, "postgres", "", "PostgreSQL `ADDR` or postgres:// URL to EXPLAIN presets on (default the lab's)")
	fs.StringVar(&f.clickhouse, "clickhouse", "", "ClickHouse `ADDR`, clickhouse:// or http:// URL to EXPLAIN presets on (default the lab's)")
	fs.StringVar(&f.gateway, "gateway", "", "Flink SQL gateway `URL` to plan the jobs with (default the lab's)")
	return f
}

// checkEngines asks the engines about lab (enginecheck), prints what they
// reject as diagnostics and what was checked against what, and fails when
// they reject anything. dir is the rendered lab directory whose endpoints,
// .env and native stack count; lab is the model to check (from the
// source, with ranges, or lab.json's); files are the source files for the
// diagnostics' snippets; out gets the summary.
func checkEngines(ctx context.Context, env *Env, out io.Writer, lab *schemas.Lab, files map[string]*hcl.File, sources func(hcl.Range, string) *schemas.SQLSource, dir string, ep *endpointFlags) error {
	rl, err := labdir.Load(dir)
	if err != nil {
		return err
	}
	eps, err := ep.endpoints(rl)
	if err != nil {
		return err
	}
	// The face that runs (the native stack if one does) says how its
	// services reach each other and where its rendered files are.
	face, rendered, err := chooseFace(dir, false, false, "", nativeIfRunning).Rendered(rl)
	if err != nil {
		return err
	}
	opt := enginecheck.Options{Gateway: eps.Gateway, Face: face, DB: eps.DB, Missing: eps.Missing,
		Env: rl.Env, Source: sources}
	if lab.Stack.Flink == nil {
		opt.Gateway = ""
	}
	if lab.DeclRange.Filename == "" {
		// lab.json's model: point at the files that will run.
		opt.RenderedDir = rendered
	}
	fmt.Fprintln(env.Stderr, "Asking the engines to check the lab's jobs, presets and query steps…")
	res, err := enginecheck.Check(ctx, lab, opt)
	if err != nil {
		return err
	}
	all := map[string]*hcl.File{}
	for k, v := range files {
		all[k] = v
	}
	for k, v := range res.Files {
		all[k] = v
	}
	if len(res.Diags) > 0 {
		writeDiagFiles(env, all, res.Diags)
	}
	for _, c := range res.Checked {
		fmt.Fprintf(out, "Checked: %s.\n", c)
	}
	for _, c := range res.NotChecked {
		fmt.Fprintf(out, "Not checked: %s.\n", c)
	}
	fmt.Fprintf(out, "The engine check took %s.\n", res.Took.Round(100*time.Millisecond))
	if res.Diags.HasErrors() {
		n := len(res.Diags.Errs())
		return &exitError{code: ExitLabErrors, msg: fmt.Sprintf("the engines reject %d statement(s) of the lab", n)}
	}
	if len(res.Checked) == 0 && len(res.NotChecked) > 0 {
		return errNothingChecked
	}
	return nil
}

// errNothingChecked: no engine answered. validate --engines fails on it
// (nothing checked is not a pass); run goes on, since it brings the
// stack up and its steps meet the engines anyway.
var errNothingChecked = &exitError{code: ExitRunFailed, msg: "no engine could check anything (see \"Not checked\" above); the lab's own checks passed, the engines' did not run"}

// renderedForCheck is the lab directory the engine check of validate
// reads endpoints and .env from: OUT when given, else the lab rendered
// into a temporary directory (removed by done).
func renderedForCheck(lab *schemas.Lab, out string) (dir string, done func(), err error) {
	if out != "" {
		return out, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "labgen-validate-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	files, err := render.Render(lab, render.Options{NoSource: true, LabgenVersion: Version})
	if err == nil {
		err = render.Write(tmp, files)
	}
	if err != nil {
		done()
		return "", nil, err
	}
	return tmp, done, nil
}

// sourceForRun loads the lab's source dir for run's engine check with the
// variable values OUT was rendered with, so that diagnostics point at the
// lab's own lines. It returns nil (and says why on stderr) when the
// source no longer renders OUT's lab.json: the check then reads lab.json.
func sourceForRun(ctx context.Context, env *Env, src string, out *labdir.Lab) (*schemas.Lab, *schemas.Parser, error) {
	// lab.json's values as a -var-file: JSON values are HCL expressions.
	var b strings.Builder
	for _, v := range out.Lab.Variables {
		fmt.Fprintf(&b, "%s = %s\n", v.Name, v.Value)
	}
	f, err := os.CreateTemp("", "labgen-run-vars-*.hcl")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return nil, nil, err
	}
	f.Close()
	lab, _, parser, err := loadLabParser(ctx, env, src, []schemas.VarArg{{File: f.Name()}})
	if err != nil {
		return nil, nil, err
	}
	files, err := render.Render(lab, render.Options{NoSource: true, LabgenVersion: Version})
	if err != nil {
		return nil, nil, err
	}
	same, err := sameLab(files["lab.json"], filepath.Join(out.Dir, "lab.json"))
	if err != nil {
		return nil, nil, err
	}
	if !same {
		fmt.Fprintf(env.Stderr, "%s does not render %s's lab.json any more (render it again); checking what %s holds.\n", src, out.Dir, out.Dir)
		return nil, nil, nil
	}
	return lab, parser, nil
}

// sameLab tells whether rendered is the lab.json at path, but for where
// each variable's value came from.
func sameLab(rendered []byte, path string) (bool, error) {
	tmp, err := os.CreateTemp("", "labgen-lab-*.json")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(rendered); err != nil {
		tmp.Close()
		return false, err
	}
	tmp.Close()
	var enc [2][]byte
	for i, p := range []string{tmp.Name(), path} {
		l, err := schemas.ReadLabJSON(p)
		if err != nil {
			return false, err
		}
		for _, v := range l.Variables {
			v.Source = ""
		}
		if enc[i], err = schemas.MarshalLab(l); err != nil {
			return false, err
		}
	}
	return bytes.Equal(enc[0], enc[1]), nil
}
