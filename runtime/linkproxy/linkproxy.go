// Package linkproxy slows one link of a lab's pipeline on demand: the
// native stack routes the link through toxiproxy (Shopify's, as a
// library), and a latency control adds a latency toxic to it through
// toxiproxy's HTTP API and removes it to undo. Bytes are delayed, never
// dropped: the pipeline delivers, late.
package linkproxy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Link is one proxied connection: clients that dial Listen reach Upstream
// through the proxy named Name.
type Link struct {
	Name, Listen, Upstream string
}

// toxic is the name of the latency a control adds, so that undoing it
// removes exactly that one.
const toxic = "labgen_latency"

// Serve runs toxiproxy's API on api (host:port) with one proxy per link,
// each listening at once. It returns only when the API server fails
// (toxiproxy's server has no shutdown: the process is stopped instead).
func Serve(api string, links []Link) error {
	host, port, err := net.SplitHostPort(api)
	if err != nil {
		return fmt.Errorf("linkproxy: --api %q: %w", api, err)
	}
	logger := zerolog.New(os.Stderr).With().Timestamp().Logger().Level(zerolog.InfoLevel)
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), logger)
	for _, l := range links {
		if err := srv.Collection.Add(toxiproxy.NewProxy(srv, l.Name, l.Listen, l.Upstream), true); err != nil {
			return fmt.Errorf("linkproxy: link %s (%s → %s): %w", l.Name, l.Listen, l.Upstream, err)
		}
	}
	// Listen serves until the process ends; it exits the process itself
	// (zerolog's Fatal) when the port is taken.
	srv.Listen(host, port)
	return errors.New("linkproxy: the API server ended")
}

// Slow delays every byte the link's upstream sends its clients by add
// (MySQL's binlog on its way to Flink, Kafka's fetch responses on their
// way to ClickHouse), from now until Restore.
func Slow(api, link string, add time.Duration) error {
	p, err := toxiclient.NewClient(api).Proxy(link)
	if err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	if _, err := p.AddToxic(toxic, "latency", "downstream", 1, toxiclient.Attributes{"latency": add.Milliseconds()}); err != nil {
		return fmt.Errorf("link %s: add latency: %w", link, err)
	}
	return nil
}

// Restore removes the latency Slow added; the bytes it held are passed on
// at once, none dropped. A link without it is left as it is.
func Restore(api, link string) error {
	p, err := toxiclient.NewClient(api).Proxy(link)
	if err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	ts, err := p.Toxics()
	if err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	for _, t := range ts {
		if t.Name == toxic {
			return p.RemoveToxic(toxic)
		}
	}
	return nil
}
