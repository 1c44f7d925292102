package cli

import (
	"context"
	"flag"
	"strings"

	"github.com/labgen/labgen/runtime/linkproxy"
)

// linkFlags collects --link NAME=LISTEN>UPSTREAM, in order.
type linkFlags []linkproxy.Link

func (l *linkFlags) String() string { return "" }

func (l *linkFlags) Set(v string) error {
	name, rest, ok1 := strings.Cut(v, "=")
	listen, upstream, ok2 := strings.Cut(rest, ">")
	if !ok1 || !ok2 || name == "" || listen == "" || upstream == "" {
		return usagef("--link %q: want NAME=LISTEN>UPSTREAM (mysql_flink=127.0.0.1:13306>127.0.0.1:3306)", v)
	}
	*l = append(*l, linkproxy.Link{Name: name, Listen: listen, Upstream: upstream})
	return nil
}

func init() {
	register(&command{
		name:    "linkproxy",
		hidden:  true,
		args:    "--api ADDR --link NAME=LISTEN>UPSTREAM…",
		summary: "hold the links a lab's latency controls slow (the native stack runs it)",
		help: `
Serves toxiproxy's HTTP API on --api with one proxy per --link: clients
that dial LISTEN reach UPSTREAM through it. The native stack runs it when
a control of the lab declares latency = { from, to, add }, and routes that
link through it (Flink's jobs dial the proxy for MySQL; ClickHouse's
Kafka tables dial it for Kafka, whose broker advertises it on their
listener); labgen run
--controls adds a latency toxic while the control is on and removes it to
undo. It runs until stopped.

Example:
  labgen linkproxy --api 127.0.0.1:8474 --link mysql_flink=127.0.0.1:13306>127.0.0.1:3306`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			var api string
			var links linkFlags
			fs.StringVar(&api, "api", "127.0.0.1:8474", "serve toxiproxy's API on `ADDR`")
			fs.Var(&links, "link", "a link to proxy, `NAME=LISTEN>UPSTREAM` (repeatable)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 0 || len(links) == 0 {
					return usagef("linkproxy takes --api and at least one --link, and no arguments")
				}
				errc := make(chan error, 1)
				go func() { errc <- linkproxy.Serve(api, links) }()
				select {
				case err := <-errc:
					return err
				case <-ctx.Done():
					return nil
				}
			}
		},
	})
}
