package cli

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The hand-written sections of docs/cli.md; the rest of the page is the
// commands' own help (WriteDoc).
const (
	docHeader = `# labgen command line

Every command with its usage line, help and flags, as ` + "`labgen <command> --help`" + `
prints them. This page is generated from labgen's own help texts
(cli/doc.go, cli/*.go): do not edit it; change the help and run
` + "`make golden`" + `.
`

	docSecrets = `## Passwords: .env and --env-file

A rendered lab directory keeps every user name and password of its
services in one file, OUT/.env. By default they are fixed local defaults,
the same in every render (every port binds to 127.0.0.1, so they guard
nothing but a mistake). To choose them, write a file of KEY=VALUE lines
with the passwords you want and render with it:

` + "```sh" + `
cat > secrets.env <<'END'
MYSQL_ROOT_PASSWORD=choose-one
MYSQL_READER_PASSWORD=and-another
CLICKHOUSE_PASSWORD=and_a.third
END
labgen render labs/orders -o out/orders --env-file secrets.env
` + "```" + `

- The keys are those of the lab's .env that end in _PASSWORD (which ones
  depends on the lab's databases); a key it does not have is an error
  that lists them. Keys you leave out keep their defaults.
- Values are letters, digits and ` + "`- _ . ~`" + ` only: a password goes
  into URLs, DSNs, SQL and shell words as it is.
- Rendering stays reproducible: the same lab, variables and file give the
  same bytes. Render again with the same --env-file, or the defaults come
  back. Keep the file out of version control.
- Everything that uses a password reads OUT/.env: docker compose, the
  native stack (labgen up --native), labgen run, smoke, batch, produce,
  console and validate --engines --out OUT, and the Kubernetes base
  (kubernetes/lab.env). For labgen's own clients a variable of the same
  name in the environment takes precedence over .env.
- The databases create their users when they first start on an empty
  volume: choose the passwords before the first up, or take the lab down
  with ` + "`labgen down OUT --volumes`" + ` (which deletes its data) and up again.
`

	docDocker = `## What needs Docker

| what | needs |
| --- | --- |
| validate, fmt, render, record, produce --sample | nothing but labgen: no Docker, no servers |
| validate --engines | the engines of a running lab (either face) or the ones the flags name |
| up, run, smoke, batch, down (the default, compose face) | Docker with the compose plugin; without it labgen says so and exits 3 |
| up --native, run --native, status (the native face) | no Docker: MariaDB (PostgreSQL for a lab whose source is PostgreSQL), Java 17 or later, Maven, python3 with venv; ` + "`scripts/install-deps.sh --demo`" + ` installs them on Debian, and ` + "`make demo`" + ` runs it |
| up --kubernetes, run --kubernetes, down --kubernetes | kubectl and a cluster with the Strimzi and Flink Kubernetes operators; no Docker here |
| produce, console | the lab's databases, reachable (either face, or the flags) |
| make deps, make test (labgen's own tests) | ` + "`scripts/install-deps.sh`" + `: all of the above and the test tooling (PostgreSQL and ClickHouse servers, shellcheck, Chromium, the Kubernetes test servers and CRDs, which need Java 21 or later) |
`
)

// WriteDoc writes docs/cli.md: the header, the exit codes, the passwords
// and Docker sections, then every command's usage, help and flags as
// --help prints them.
func WriteDoc(w io.Writer) {
	fmt.Fprint(w, docHeader+"\n")
	cs := visibleCommands()
	fmt.Fprint(w, "| command | does |\n| --- | --- |\n")
	for _, c := range cs {
		fmt.Fprintf(w, "| [`%s`](#labgen-%s) | %s |\n", c.name, c.name, c.summary)
	}
	fmt.Fprint(w, "\n## Exit codes\n\nThe same for every command (cli.ExitCodes):\n\n| code | meaning |\n| --- | --- |\n")
	for _, c := range ExitCodes {
		fmt.Fprintf(w, "| %d | %s |\n", c.Code, c.Meaning)
	}
	fmt.Fprintf(w, "\n%s\n%s\n## Commands\n", docSecrets, docDocker)
	for _, c := range cs {
		fs := flag.NewFlagSet("labgen "+c.name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.setup(fs, &Env{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader("")})
		var help strings.Builder
		printCommandHelp(&help, c, fs)
		fmt.Fprintf(w, "\n### labgen %s\n\n%s.\n\n```text\n%s```\n", c.name, upperFirst(c.summary), help.String())
	}
}

// visibleCommands are the commands labgen --help lists, in its order.
func visibleCommands() []*command {
	var cs []*command
	for _, c := range commands {
		if !c.hidden {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return order(cs[i].name) < order(cs[j].name) })
	return cs
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
