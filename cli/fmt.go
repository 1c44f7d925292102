package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "fmt",
		args:    "[-check] LAB_DIR",
		summary: "rewrite a lab's .hcl files in canonical style",
		help: `
Rewrites every .hcl file of LAB_DIR in HCL's canonical layout (aligned
equals signs, two-space indentation). Files with syntax errors, and files
larger than 1 MiB or nested too deeply for the loader, are reported and
left untouched.

With -check nothing is written: the files that would change are listed and
the exit code is 1 if there are any (for CI).

Examples:
  labgen fmt labs/orders
  labgen fmt -check labs/orders`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			check := fs.Bool("check", false, "list files that are not formatted and exit 1 if any; write nothing")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("fmt takes one lab directory")
				}
				if err := labDirArg(args[0]); err != nil {
					return err
				}
				files, err := schemas.LabFiles(args[0])
				if err != nil {
					return err
				}
				// The sources of files with errors, for the snippets; a
				// file parsed without one is let go, as a lab's files may
				// be many.
				withErrors := map[string]*hcl.File{}
				var diags hcl.Diagnostics
				changed := 0
				for _, name := range files {
					if err := ctx.Err(); err != nil {
						return err // interrupted: the files done so far are whole
					}
					// Within the loader's limits (size, nesting), or
					// parsing alone could exhaust memory or the stack.
					src, d := schemas.ReadHCL(name)
					if d.HasErrors() {
						diags = append(diags, d...)
						continue
					}
					// Parse first: hclwrite.Format does not report errors.
					parser := hclparse.NewParser()
					if _, d := schemas.ParseHCL(parser, src, name); d.HasErrors() {
						diags = append(diags, d...)
						maps.Copy(withErrors, parser.Files())
						continue
					}
					out := hclwrite.Format(src)
					if bytes.Equal(out, src) {
						continue
					}
					changed++
					fmt.Fprintln(env.Stdout, name)
					if !*check {
						if err := os.WriteFile(name, out, 0o644); err != nil {
							return err
						}
					}
				}
				if len(diags) > 0 {
					writeDiagFiles(env, withErrors, diags)
					return &exitError{code: ExitLabErrors, msg: "files with errors were left untouched"}
				}
				if *check && changed > 0 {
					return &exitError{code: ExitLabErrors, msg: fmt.Sprintf("%d file(s) are not formatted; run labgen fmt %s", changed, args[0])}
				}
				return nil
			}
		},
	})
}
