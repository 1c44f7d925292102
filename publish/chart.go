package publish

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/labgen/labgen/runtime/record"
)

// Charts are drawn by gonum/plot into SVG (vgsvg): pure Go, no browser or
// JavaScript, fonts referenced by name and not embedded, so a page stays
// small and loads nothing. Each line of a chart has its own colour from
// palette; the browser test counts a chart's series by those colours.

// palette is colour-blind safe (Okabe–Ito), in drawing order.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0x00, 0x9E, 0x73, 0xff}, {0xCC, 0x79, 0xA7, 0xff},
	{0xE6, 0x9F, 0x00, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0x88, 0x22, 0x55, 0xff}, {0x44, 0xAA, 0x99, 0xff},
}

// maxSeries bounds the lines of one chart; more would not be readable.
const maxSeries = 8

// line is one series of a chart: x in seconds, y numbers.
type line struct {
	Name string
	XY   plotter.XYs
}

// marker is a vertical line at x with a label (a TaskManager stopped).
type marker struct {
	X     float64
	Label string
}

// chart is an SVG and the number of series drawn in it.
type chart struct {
	Title  string
	SVG    string
	Series int
	// Left says how many series did not fit.
	Left int
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// lineChart draws numeric series over time.
func lineChart(title, yLabel string, lines []line, markers []marker) (chart, error) {
	c := chart{Title: title}
	if len(lines) > maxSeries {
		c.Left = len(lines) - maxSeries
		lines = lines[:maxSeries]
	}
	p := newPlot(title, "seconds", yLabel)
	p.Y.Tick.Marker = plainTicks{}
	for i, l := range lines {
		pl, err := plotter.NewLine(l.XY)
		if err != nil {
			return c, err
		}
		pl.Color = palette[i]
		pl.Width = vg.Points(1.6)
		p.Add(pl)
		p.Legend.Add(l.Name, pl)
		if len(l.XY) <= 60 {
			sc, err := plotter.NewScatter(l.XY)
			if err != nil {
				return c, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: palette[i], Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
	}
	addMarkers(p, markers)
	c.Series = len(lines)
	return c, render(p, &c, 300)
}

// timelineChart draws text series (a job's state) as steps between
// levels, one level per state.
func timelineChart(title string, lines []line, levels []string, markers []marker) (chart, error) {
	c := chart{Title: title}
	p := newPlot(title, "seconds", "")
	p.Y.Min, p.Y.Max = -0.5, float64(len(levels))-0.5
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		ts := make([]plot.Tick, len(levels))
		for i, l := range levels {
			ts[i] = plot.Tick{Value: float64(i), Label: l}
		}
		return ts
	})
	for i, l := range lines {
		if i >= maxSeries {
			c.Left++
			continue
		}
		pl, err := plotter.NewLine(l.XY)
		if err != nil {
			return c, err
		}
		pl.StepStyle = plotter.PostStep
		pl.Color = palette[i]
		pl.Width = vg.Points(2.4)
		p.Add(pl)
		if len(lines) > 1 {
			p.Legend.Add(l.Name, pl)
		}
		c.Series++
	}
	addMarkers(p, markers)
	h := 110 + 26*len(levels)
	return c, render(p, &c, h)
}

// histogram draws observed counts (bars) and the counts a declared
// distribution expects of as many values (a line through the bins'
// middles), over the same bins: generator input vs observed.
func histogram(title, xLabel string, bins []record.Bin) (chart, error) {
	c := chart{Title: title}
	p := newPlot(title, xLabel, "count")
	p.Y.Tick.Marker = plainTicks{}
	h := &plotter.Histogram{FillColor: color.RGBA{0x00, 0x72, 0xB2, 0x66}}
	h.LineStyle.Width = vg.Points(1)
	h.LineStyle.Color = palette[0]
	var xy plotter.XYs
	for _, b := range bins {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.Lo, Max: b.Hi, Weight: float64(b.Observed)})
		xy = append(xy, plotter.XY{X: (b.Lo + b.Hi) / 2, Y: b.Declared})
	}
	if len(bins) > 0 {
		h.Width = bins[0].Hi - bins[0].Lo
	}
	p.Add(h)
	p.Legend.Add("observed", h)
	c.Series = 1
	if len(xy) > 0 {
		pl, err := plotter.NewLine(xy)
		if err != nil {
			return c, err
		}
		pl.Color = palette[1]
		pl.Width = vg.Points(1.6)
		p.Add(pl)
		p.Legend.Add("declared", pl)
		c.Series++
	}
	return c, render(p, &c, 300)
}

func addMarkers(p *plot.Plot, ms []marker) {
	for _, m := range ms {
		xy := plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}}
		if p.Y.Max <= p.Y.Min {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color = color.Gray{0x88}
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.X, Y: p.Y.Max}}, Labels: []string{" " + m.Label}})
		if err == nil {
			for i := range lb.TextStyle {
				lb.TextStyle[i].Color = color.Gray{0x55}
				lb.TextStyle[i].YAlign = -1
			}
			p.Add(lb)
		}
	}
}

// svgNoise is what vgsvg writes that a page does not need: the XML
// prologue (invalid inside HTML) and fixed width/height (the page scales
// the chart with CSS).
var (
	xmlProlog = regexp.MustCompile(`<\?xml[^>]*\?>\s*`)
	svgSize   = regexp.MustCompile(`<svg([^>]*?) width="[^"]*" height="[^"]*"`)
)

func render(p *plot.Plot, c *chart, height int) error {
	// Markers are drawn after the data ranges are known: re-add them with
	// the final range by drawing into the canvas once.
	cv := vgsvg.New(vg.Points(640), vg.Points(float64(height)))
	p.Draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return err
	}
	s := xmlProlog.ReplaceAllString(b.String(), "")
	s = svgSize.ReplaceAllString(s, `<svg$1 role="img"`)
	s = strings.Replace(s, "<svg", fmt.Sprintf(`<svg aria-label="%s"`, attrEscape(c.Title)), 1)
	c.SVG = s
	return nil
}

func attrEscape(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}

// plainTicks are gonum's default ticks with integer labels written out
// (1200000, not 1.2e+06): counts read better that way.
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" && ts[i].Value == math.Trunc(ts[i].Value) && math.Abs(ts[i].Value) < 1e15 {
			ts[i].Label = fmt.Sprintf("%.0f", ts[i].Value)
		}
	}
	return ts
}
