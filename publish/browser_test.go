package publish

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/record"
)

// screenshotDir is where the browser test leaves its screenshots (a CI
// artifact), as the console's browser test does.
const screenshotDir = "../out"

func chromium(t *testing.T) string {
	t.Helper()
	mode := os.Getenv(testsrv.EnvVar)
	if mode == "off" {
		t.Skipf("browser tests are turned off (%s=off)", testsrv.EnvVar)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if mode == "require" {
		t.Fatalf("chromium not found in PATH; %s=require", testsrv.EnvVar)
	}
	t.Skip("chromium not found in PATH")
	return ""
}

// TestBrowser renders every published page (a set's too) in headless
// Chromium, on a desktop and a phone width: no request but the page
// itself, no console error, a screenshot that is not blank, and each
// chart's SVG draws as many series (distinct palette colours) as its
// figure says.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	files, err := Write(dir, []*record.Record{load(t, "sampled"), variant(t)})
	if err != nil {
		t.Fatal(err)
	}
	more, err := Write(filepath.Join(dir, "orders"), []*record.Record{load(t, "orders")})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	// A set of the two sampled runs, with a measure: its page
	// (index.html), each run's and the comparison.
	var runs []*record.Record
	for i, r := range []*record.Record{load(t, "sampled"), variant(t)} {
		lag := 2.5 + float64(i)
		r.Experiments[0].Measures = []record.Measure{{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Value: &lag}}
		runs = append(runs, r)
	}
	set, err := record.SetOf("set", runs, false)
	if err != nil {
		t.Fatal(err)
	}
	setDir := filepath.Join(dir, "set")
	more, err = WriteSet(setDir, set)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-dev-shm-usage", true))
	defer cancelAlloc()
	bctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancelCtx()
	var mu sync.Mutex
	var requests, problems []string
	// Listen starts the browser; chromedp enables the network, runtime and
	// log domains of the page.
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console "+string(e.Type))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()

	for _, f := range files {
		if filepath.Base(f) == "index.html" && filepath.Dir(f) != setDir {
			continue // the same page as compare.html
		}
		for _, width := range []int64{1280, 390} {
			name := strings.TrimSuffix(filepath.Base(f), ".html")
			mu.Lock()
			requests, problems = nil, nil
			mu.Unlock()
			url := "file://" + f
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url), chromedp.WaitReady("footer")); err != nil {
				t.Fatalf("%s at %d px: %v", name, width, err)
			}
			figures, err := chromedp.Run(ctx, chromedp.Evaluate[[]figure](seriesJS))
			if err != nil {
				t.Fatalf("%s: counting series: %v", name, err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("%s: screenshot: %v", name, err)
			}
			mu.Lock()
			for _, r := range requests {
				if r != url {
					t.Errorf("%s: requested %s", name, r)
				}
			}
			for _, p := range problems {
				t.Errorf("%s: %s", name, p)
			}
			mu.Unlock()
			if err := notBlank(shot); err != nil {
				t.Errorf("%s at %d px: %v", name, width, err)
			}
			for _, fig := range figures {
				if fig.Want != fig.Got || fig.Got == 0 {
					t.Errorf("%s: chart %q says %d series, its SVG draws %d", name, fig.Title, fig.Want, fig.Got)
				}
			}
			if want := wantCharts[name]; len(figures) != want {
				t.Errorf("%s: %d charts, want %d", name, len(figures), want)
			}
			if width == 1280 {
				t.Logf("%s: %d charts", name, len(figures))
			}
			out := filepath.Join(screenshotDir, fmt.Sprintf("publish-%s-%d.png", name, width))
			if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
				_ = os.WriteFile(out, shot, 0o644)
			}
		}
	}
}

// wantCharts by page: the sampled record charts the quantity that
// changes more than once (checkpoints, its line broken between the two
// steps that sampled it) and the time to running (its job state, RUNNING
// throughout, vertex 2, 0 throughout, and vertex 1's records out, which
// changes once, are lines of text); the real seed-lab record samples
// nothing but has its time to running; the comparison overlays the one
// quantity the records' pages chart (checkpoints); a set's page (index)
// draws none.
var wantCharts = map[string]int{"20261130-220756-339e": 2, "20261130-220756-339e-b": 2, "compare": 1, "20261130-214026-ac7a": 1, "index": 0}

type figure struct {
	Title     string `json:"title"`
	Want, Got int
}

// seriesJS counts, per chart, the distinct palette colours its SVG
// strokes with, beside the series count its figure declares.
var seriesJS = `(() => {
  const palette = new Set(` + paletteJS() + `);
  return [...document.querySelectorAll('figure.chart')].map(f => {
    const seen = new Set();
    for (const p of f.querySelectorAll('svg path')) {
      const m = /stroke:(#[0-9A-Fa-f]{6})/.exec(p.getAttribute('style') || '');
      if (m && palette.has(m[1].toUpperCase())) seen.add(m[1].toUpperCase());
    }
    return {title: f.querySelector('figcaption').textContent, Want: Number(f.dataset.series), Got: seen.size};
  });
})()`

func paletteJS() string {
	var cs []string
	for _, c := range palette {
		cs = append(cs, fmt.Sprintf(`"#%02X%02X%02X"`, c.R, c.G, c.B))
	}
	return "[" + strings.Join(cs, ",") + "]"
}

// notBlank fails a screenshot of one colour or nearly so.
func notBlank(b []byte) error {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return err
	}
	colours := map[uint32]bool{}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 7 {
		for x := bd.Min.X; x < bd.Max.X; x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|b>>8] = true
		}
	}
	if len(colours) < 20 {
		return fmt.Errorf("the screenshot looks blank: %d colours", len(colours))
	}
	return nil
}
