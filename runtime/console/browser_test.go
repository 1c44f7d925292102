package console

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/query"
)

// screenshotDir is where the browser test leaves its screenshots (a CI
// artifact): the repository's out/.
const screenshotDir = "../../out"

// chromium finds Debian's chromium, or skips or fails t as
// LABGEN_TEST_SERVERS says (the testsrv convention).
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
	msg := "chromium not found in PATH (install Debian package chromium)"
	if mode == "require" {
		t.Fatalf("%s; %s=require", msg, testsrv.EnvVar)
	}
	t.Skipf("%s; set %s=require to fail instead", msg, testsrv.EnvVar)
	return ""
}

func TestBrowser(t *testing.T) {
	bin := chromium(t)
	lab := loadLab(t)
	for _, p := range lab.Presets {
		if p.Name == "latest_lake_audit" {
			p.Unavailable = "needs fluss, which the stack does not run"
		}
	}
	f := newFixture(t, lab, query.Limits{})
	before := f.snapshot(t)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 860),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancelCtx()

	// Every request the page makes must go to the console itself. Listen
	// also starts the browser, on a context without a timeout.
	var mu sync.Mutex
	var requests []string
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	screenshot := func(name string) {
		t.Helper()
		png := run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
		if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(screenshotDir, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	do("load the page",
		chromedp.Navigate(f.url+"/"),
		chromedp.WaitVisible(css(`body[data-ready="true"]`)),
	)
	if text := run(t, ctx, "lab name", chromedp.Text(css("#lab-name"))); text != "orders" {
		t.Errorf("lab name %q", text)
	}

	// ClickHouse: its presets, one unavailable; load and run one.
	wide := `#presets li.preset[data-name="latest_wide_orders"]`
	do("pick ClickHouse and a preset",
		chromedp.Click(css("#engine-clickhouse")),
		chromedp.WaitVisible(css(wide)),
		chromedp.Click(css(wide+" button.load")),
	)
	if text := run(t, ctx, "preset description", chromedp.Text(css(wide+" .desc"))); !strings.Contains(text, "most recently updated wide rows") {
		t.Errorf("preset description %q", text)
	}
	if sqlText := run(t, ctx, "editor", chromedp.Value(css("#sql"))); !strings.Contains(sqlText, "FROM analytics.dwd_order_wide FINAL") {
		t.Errorf("editor holds %q, want the preset's SQL", sqlText)
	}
	audit := `#presets li.preset[data-name="latest_lake_audit"]`
	text := run(t, ctx, "unavailable preset", chromedp.Text(css(audit+" .why")))
	disabled := run(t, ctx, "unavailable preset", chromedp.Evaluate[bool](`document.querySelector('`+audit+` button.load').disabled`))
	if !strings.Contains(text, "Unavailable: needs fluss") || !disabled {
		t.Errorf("unavailable preset: text %q, load disabled %v", text, disabled)
	}
	do("run the preset",
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#result tbody tr")),
	)
	if text := run(t, ctx, "status", chromedp.Text(css("#status"))); !strings.HasPrefix(text, "3 rows in ") {
		t.Errorf("status %q, want 3 rows and the time", text)
	}
	headers := run(t, ctx, "headers", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#result th')].map(th => th.textContent)`))
	wantHeaders := []string{"order_idInt64", "order_statusString", "payment_statusString", "order_amountDecimal(12, 2)", "updated_atDateTime"}
	if strings.Join(headers, "|") != strings.Join(wantHeaders, "|") {
		t.Errorf("headers %q, want %q (name and type)", headers, wantHeaders)
	}
	firstRow := `[...document.querySelectorAll('#result tbody tr:first-child td')].map(td => td.textContent)`
	if cells := run(t, ctx, "first row", chromedp.Evaluate[[]string](firstRow)); strings.Join(cells, "|") != "2|FAILED|FAILED|99.99|2026-01-01 10:00:50" {
		t.Errorf("first row %q", cells)
	}
	screenshot("console-screenshot.png")

	// Numbers keep the server's digits: the decimal's scale, and integers
	// beyond JavaScript's 2^53.
	do("exact numbers",
		chromedp.SetValue(css("#sql"), "SELECT toUInt64(18446744073709551615) AS big, toDecimal32('12.5', 2) AS d, [toUInt64(9007199254740993)] AS arr, toFloat64(0.1) AS f"),
		chromedp.Click(css("#run")),
	)
	run(t, ctx, "wait for the numbers", chromedp.Poll[bool](`document.querySelector('#result th') !== null && document.querySelector('#result th').textContent.startsWith('big')`))
	if cells := run(t, ctx, "numbers", chromedp.Evaluate[[]string](firstRow)); strings.Join(cells, "|") != "18446744073709551615|12.50|[9007199254740993]|0.1" {
		t.Errorf("numbers shown as %q", cells)
	}

	// MySQL: a value holding HTML renders as text.
	do("a value with HTML",
		chromedp.Click(css("#engine-mysql")),
		chromedp.SetValue(css("#sql"), "SELECT order_id, category, paid_at FROM orders LEFT JOIN payments USING (order_id) WHERE order_id = 4"),
		chromedp.Click(css("#run")),
	)
	run(t, ctx, "wait for the MySQL result", chromedp.Poll[bool](`document.querySelector('#result tbody td') !== null && document.querySelector('#result tbody td').textContent === '4'`))
	if cells := run(t, ctx, "cells", chromedp.Evaluate[[]string](firstRow)); len(cells) != 3 || cells[1] != evilCategory || cells[2] != "NULL" {
		t.Errorf("cells %q, want the HTML as text and NULL", cells)
	}
	if !run(t, ctx, "no HTML", chromedp.Evaluate[bool](`document.getElementById('pwn') === null && document.querySelectorAll('#result b, #result script').length === 0`)) {
		t.Error("a value was rendered as HTML")
	}

	// A DROP is refused, with the reason on the page.
	do("run a DROP",
		chromedp.SetValue(css("#sql"), "DROP TABLE orders"),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#error")),
	)
	if text := run(t, ctx, "error", chromedp.Text(css("#error"))); !strings.HasPrefix(text, "Refused: only SELECT") || !strings.Contains(text, "DROP") {
		t.Errorf("error shown: %q", text)
	}
	if !run(t, ctx, "result hidden", chromedp.Evaluate[bool](`document.getElementById('result').hidden`)) {
		t.Error("the previous result is still shown after the refusal")
	}
	screenshot("console-refused.png")

	// Recent queries survive a reload and load back into the editor.
	do("reload", chromedp.Reload(), chromedp.WaitVisible(css(`body[data-ready="true"]`)))
	recent := run(t, ctx, "recent queries", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#recent li')].map(li => li.textContent)`))
	if len(recent) != 4 || !strings.Contains(recent[0], "DROP TABLE orders") || !strings.HasPrefix(recent[3], "clickhouse") {
		t.Errorf("recent queries %q", recent)
	}
	do("load a recent query", chromedp.Click(css("#recent li:nth-child(4)")))
	sqlText := run(t, ctx, "editor", chromedp.Value(css("#sql")))
	checked := run(t, ctx, "engine", chromedp.Evaluate[string](`document.getElementById('engine-clickhouse').getAttribute('aria-checked')`))
	if !strings.Contains(sqlText, "dwd_order_wide") || checked != "true" {
		t.Errorf("recent query loaded %q on ClickHouse=%s", sqlText, checked)
	}

	mu.Lock()
	for _, u := range requests {
		if !strings.HasPrefix(u, f.url+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s, outside the console", u)
		}
	}
	if len(requests) < 4 {
		t.Errorf("saw only %d requests (%q): the network listener is not working", len(requests), requests)
	}
	mu.Unlock()
	if after := f.snapshot(t); after != before {
		t.Errorf("the data changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// run runs one browser action and returns its value, failing t on error.
func run[T any](t *testing.T, ctx context.Context, step string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return v
}
