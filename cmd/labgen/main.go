// Command labgen renders streaming-data labs written in HCL and runs them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/labgen/labgen/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
