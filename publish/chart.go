package publish

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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
	// Breaks are the indices of XY where the line starts again: the
	// time before was not sampled, and no line crosses it.
	Breaks []int
}

// segments are the line's runs of points, split at its breaks.
func (l line) segments() []plotter.XYs {
	var out []plotter.XYs
	from := 0
	for _, b := range l.Breaks {
		if b > from && b < len(l.XY) {
			out = append(out, l.XY[from:b])
			from = b
		}
	}
	return append(out, l.XY[from:])
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

// sans is the charts' font: Liberation Sans has the metrics of Arial and
// Helvetica, which the SVG names after it (svgFont), so that what render
// measures is close to what a browser draws.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = font.From(sans, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	return p
}

// legendEntry is one line of a chart's legend, drawn below the plot
// area (render), never over the data.
type legendEntry struct {
	Name  string
	Thumb plot.Thumbnailer
}

// lineChart draws numeric series over time.
func lineChart(title, yLabel string, lines []line, markers []marker) (chart, error) {
	return lineChartX(title, "seconds", yLabel, lines, markers)
}

// lineChartX is lineChart over another x axis than seconds.
func lineChartX(title, xLabel, yLabel string, lines []line, markers []marker) (chart, error) {
	c := chart{Title: title}
	if len(lines) > maxSeries {
		c.Left = len(lines) - maxSeries
		lines = lines[:maxSeries]
	}
	p := newPlot(title, xLabel, yLabel)
	p.Y.Tick.Marker = plainTicks{}
	var legend []legendEntry
	for i, l := range lines {
		var first *plotter.Line
		for _, seg := range l.segments() {
			pl, err := plotter.NewLine(seg)
			if err != nil {
				return c, err
			}
			pl.Color = palette[i]
			pl.Width = vg.Points(1.6)
			p.Add(pl)
			if first == nil {
				first = pl
			}
		}
		legend = append(legend, legendEntry{l.Name, first})
		if len(l.XY) <= 60 {
			sc, err := plotter.NewScatter(l.XY)
			if err != nil {
				return c, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: palette[i], Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
	}
	// One line needs no legend when the axis names it (not a key of it:
	// records_out's vertex 1).
	if len(lines) == 1 && lines[0].Name == yLabel {
		legend = nil
	}
	c.Series = len(lines)
	return c, render(p, &c, 300, legend, markers)
}

// timelineChart draws spans between levels, one level per name (the
// parts of an interruption).
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
	var legend []legendEntry
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
		legend = append(legend, legendEntry{l.Name, pl})
		c.Series++
	}
	if len(lines) == 1 {
		legend = nil
	}
	h := 110 + 26*len(levels)
	return c, render(p, &c, h, legend, markers)
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
	legend := []legendEntry{{"observed", h}}
	c.Series = 1
	if len(xy) > 0 {
		pl, err := plotter.NewLine(xy)
		if err != nil {
			return c, err
		}
		pl.Color = palette[1]
		pl.Width = vg.Points(1.6)
		p.Add(pl)
		legend = append(legend, legendEntry{"declared", pl})
		c.Series++
	}
	return c, render(p, &c, 300, legend, nil)
}

// addMarkers draws each marker as a dashed vertical line across the plot;
// render writes their labels above the plot area.
func addMarkers(p *plot.Plot, ms []marker) {
	if p.Y.Max <= p.Y.Min {
		return
	}
	for _, m := range ms {
		l, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: p.Y.Min}, {X: m.X, Y: p.Y.Max}})
		if err != nil {
			continue
		}
		l.Color = color.Gray{0x88}
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
	}
}

// svgNoise is what vgsvg writes that a page does not need: the XML
// prologue (invalid inside HTML) and fixed width/height (the page scales
// the chart with CSS).
var (
	xmlProlog = regexp.MustCompile(`<\?xml[^>]*\?>\s*`)
	svgSize   = regexp.MustCompile(`<svg([^>]*?) width="[^"]*" height="[^"]*"`)
	svgFont   = strings.NewReplacer("font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
)

// chartWidth is the width charts are drawn at; the page scales them.
const chartWidth = 640

// slack widens measured text: the SVG names its fonts without embedding
// them, and a browser with none of them draws a wider one (DejaVu Sans,
// about 15% wider than Arial).
const slack = 1.2

// render draws a plot into c.SVG: the title on top, then the markers'
// labels (staggered into rows where they would overlap), the plot, and
// its legend in columns below it, so that no text lies over the data.
func render(p *plot.Plot, c *chart, height int, legend []legendEntry, markers []marker) error {
	addMarkers(p, markers)
	title := p.Title.Text
	titleSty := p.Title.TextStyle
	p.Title.Text = ""
	pad := vg.Points(4)
	width := vg.Points(chartWidth)
	// A long title is set smaller rather than cut at the edges.
	for titleSty.Font.Size > 7 && titleSty.Width(title)*slack > width-2*pad {
		titleSty.Font.Size -= 0.5
	}

	// Where the data area lies across: it does not depend on the height.
	probe := draw.Canvas{Canvas: vgsvg.New(width, vg.Points(float64(height))), Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: vg.Points(float64(height))}}}
	dataC := p.DataCanvas(probe)
	trX, _ := p.Transforms(&dataC)

	labelSty := p.X.Tick.Label
	labelSty.Color = color.Gray{0x55}
	labelSty.XAlign, labelSty.YAlign = draw.XLeft, draw.YBottom
	lineH := labelSty.FontExtents().Height
	type placed struct {
		x   vg.Length
		row int
		txt string
	}
	var labels []placed
	var rowEnd []vg.Length
	for _, m := range markers {
		txt := m.Label
		w := labelSty.Width(txt) * slack
		x := trX(m.X) + vg.Points(2)
		if x+w > width {
			x = width - w
		}
		row := 0
		for row < len(rowEnd) && x < rowEnd[row]+pad {
			row++
		}
		if row == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[row] = x + w
		labels = append(labels, placed{x, row, txt})
	}
	markerH := vg.Length(len(rowEnd)) * lineH

	leg := plot.NewLegend()
	leg.TextStyle.Font = font.From(sans, 11)
	entryW := vg.Length(0)
	for _, e := range legend {
		if w := leg.ThumbnailWidth + leg.TextStyle.Width(" "+e.Name)*slack + 3*pad; w > entryW {
			entryW = w
		}
	}
	cols, rows := 0, 0
	var legendH vg.Length
	if len(legend) > 0 {
		cols = int((width - dataC.Min.X) / entryW)
		cols = max(1, min(cols, len(legend)))
		rows = (len(legend) + cols - 1) / cols
		legendH = vg.Length(rows)*(leg.TextStyle.FontExtents().Height+pad) + 2*pad
	}

	titleH := vg.Length(0)
	if title != "" {
		titleH = titleSty.Rectangle(title).Size().Y + pad
	}
	total := vg.Points(float64(height)) + markerH + legendH
	cv := vgsvg.New(width, total)
	full := draw.New(cv)
	if title != "" {
		full.FillText(titleSty, vg.Point{X: full.Center().X, Y: full.Max.Y + titleSty.FontExtents().Descent}, title)
	}
	// The right margin keeps the last tick label inside in a wider font.
	plotC := draw.Crop(full, 0, -2*pad, legendH, -(titleH + markerH))
	p.Draw(plotC)
	for _, l := range labels {
		y := plotC.Max.Y + vg.Length(len(rowEnd)-1-l.row)*lineH
		full.FillText(labelSty, vg.Point{X: l.x, Y: y}, l.txt)
	}
	for col := 0; col < cols; col++ {
		l := plot.NewLegend()
		l.TextStyle = leg.TextStyle
		l.Top, l.Left = true, true
		l.Padding = pad
		for i := col; i < len(legend); i += cols {
			l.Add(legend[i].Name, legend[i].Thumb)
		}
		x := dataC.Min.X + vg.Length(col)*entryW
		l.Draw(draw.Canvas{Canvas: cv, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: full.Min.Y},
			Max: vg.Point{X: x + entryW, Y: full.Min.Y + legendH - pad},
		}})
	}

	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return err
	}
	s := svgFont.Replace(xmlProlog.ReplaceAllString(b.String(), ""))
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
