// Command withbroker runs a command beside a real Kafka broker (see package
// testkafka): it starts the broker, runs the command with
// LABGEN_KAFKA_BROKER=127.0.0.1:port in its environment, kills the broker
// and exits with the command's status.
//
//	go run ./internal/testkafka/withbroker prove/clickhouse/prove-clickhouse.sh DIR…
//
// When java or mvn is missing the command runs without the variable and
// with LABGEN_KAFKA_BROKER_MISSING set to the reason, unless
// LABGEN_TEST_SERVERS=require (then withbroker fails), or
// LABGEN_TEST_SERVERS=off (then no broker is started either).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/labgen/labgen/internal/testkafka"
)

// MissingEnv tells the command why it has no broker.
const MissingEnv = "LABGEN_KAFKA_BROKER_MISSING"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: withbroker COMMAND [ARG…]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	env := os.Environ()
	mode := os.Getenv(testkafka.EnvVar)
	switch mode {
	case "", "require":
		fmt.Fprintf(os.Stderr, "withbroker: starting Kafka %s\n", testkafka.Version)
		srv, err := testkafka.Start(context.Background())
		switch {
		case err == nil:
			defer func() {
				if err := srv.Stop(); err != nil {
					fmt.Fprintln(os.Stderr, "withbroker: stopping the broker:", err)
				}
			}()
			fmt.Fprintf(os.Stderr, "withbroker: Kafka %s listening on %s\n", testkafka.Version, srv.Addr)
			env = append(env, testkafka.BrokerEnv+"="+srv.Addr)
		case errors.Is(err, testkafka.ErrMissing) && mode == "":
			fmt.Fprintf(os.Stderr, "withbroker: no broker: %v\n", err)
			env = append(env, MissingEnv+"="+err.Error())
		default:
			fmt.Fprintf(os.Stderr, "withbroker: %v\n", err)
			return 1
		}
	case "off":
		env = append(env, MissingEnv+"=test servers are turned off ("+testkafka.EnvVar+"=off)")
	default:
		fmt.Fprintf(os.Stderr, "withbroker: %s=%q: want unset, \"require\" or \"off\"\n", testkafka.EnvVar, mode)
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	// On Ctrl-C or SIGTERM, pass the signal on and wait for the command,
	// then stop the broker rather than die first.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "withbroker: %v\n", err)
		return 1
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if exit.ExitCode() >= 0 {
				return exit.ExitCode()
			}
			return 1
		}
		fmt.Fprintf(os.Stderr, "withbroker: %v\n", err)
		return 1
	}
	return 0
}
