package render

// This file holds how each strategy is drawn: its colour and marker, and the markers the
// package draws itself.

import (
	"image/color"
	"math"

	"github.com/deferbench/deferbench/cmd/deferbench/internal/suite"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Style is how one strategy is drawn: its colour and its marker.
type Style struct {
	Color color.Color
	Glyph draw.GlyphDrawer
}

// styleOf gives every strategy its style: by its row in the strategy table, then the names
// not in it in the order given.
func styleOf(strategies []string) func(string) Style {
	m := map[string]Style{}
	i := 0
	next := func() Style {
		s := Style{strategyColors[i%len(strategyColors)], strategyGlyphs[i%len(strategyGlyphs)]}
		i++
		return s
	}
	for _, s := range suite.Strategies {
		m[s.Name] = next()
	}
	for _, s := range strategies {
		if _, ok := m[s]; !ok {
			m[s] = next()
		}
	}
	return func(s string) Style { return m[s] }
}

// strategyColors and strategyGlyphs are taken in turn by the rows of the strategy table
// (baseline, the first row, is grey), with as many distinct markers. The six strategies get
// the six hues of the Okabe-Ito palette and its darker companions that lie farthest apart in
// CIELAB with grey (at least 40 apart, ΔE 1976; blue and sky blue, orange and vermillion,
// both once used, were 26 and 33 apart and read as one colour in a small legend), the
// references after them (noop, ecs, ark: at least 30 apart from everything). A strategy added
// to the table gets the next pair; names not in the table (a bench.txt of another version)
// follow in first-seen order.
var (
	strategyColors = []color.Color{
		color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey (baseline)
		color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue (cmdbuffer)
		color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion (lazyguarded)
		color.RGBA{0x5E, 0x3C, 0x99, 0xff}, // dark purple (lazyguarded-pass)
		color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green (handrolled)
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black (hybrid)
		color.RGBA{0xB8, 0xA0, 0x00, 0xff}, // dark yellow (versioned)
		color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple (noop)
		color.RGBA{0x8C, 0x56, 0x4B, 0xff}, // brown (ecs)
		color.RGBA{0x00, 0x5F, 0x5F, 0xff}, // dark teal (ark)
		color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
		color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	}
	// strategyGlyphs has no upward triangle: a filled ▲ (cutGlyph) marks an interval cut at
	// the axis, the ▲ the titles count, and means nothing else. Ten glyphs for the ten rows of
	// the table: ecs and ark no longer share the baseline's circle and cmdbuffer's square.
	strategyGlyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.SquareGlyph{}, diamondGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
		diamondGlyph{filled: true}, draw.CrossGlyph{}, draw.PlusGlyph{}, downTriangleGlyph{}, starGlyph{},
	}
	// cutGlyph marks an interval cut at the top of the axis: ▲.
	cutGlyph draw.GlyphDrawer = draw.PyramidGlyph{}
)

// downTriangleGlyph draws a filled triangle standing on its point (▼): unlike the cut mark ▲.
type downTriangleGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (downTriangleGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r*0.6})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y + r*0.6})
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
}

// starGlyph draws an asterisk of three strokes (✱ without its fill).
type starGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (starGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)})
	for _, a := range []float64{math.Pi / 2, math.Pi/2 + 2*math.Pi/3, math.Pi/2 + 4*math.Pi/3} {
		dx, dy := r*vg.Length(math.Cos(a)), r*vg.Length(math.Sin(a))
		var p vg.Path
		p.Move(vg.Point{X: pt.X - dx, Y: pt.Y - dy})
		p.Line(vg.Point{X: pt.X + dx, Y: pt.Y + dy})
		c.Stroke(p)
	}
}

// diamondGlyph draws a square stood on its corner, its outline or filled.
type diamondGlyph struct{ filled bool }

// DrawGlyph implements draw.GlyphDrawer.
func (g diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	if g.filled {
		c.SetColor(sty.Color)
		c.Fill(p)
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.5)})
	c.Stroke(p)
}

// legendGlyph draws a marker in black over a legend entry's colour box.
type legendGlyph struct {
	g     draw.GlyphDrawer
	color color.Color
}

// Thumbnail implements plot.Thumbnailer.
func (l legendGlyph) Thumbnail(c *draw.Canvas) {
	ctr := vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
	c.DrawGlyph(draw.GlyphStyle{Color: l.color, Radius: vg.Points(2.5), Shape: l.g}, ctr)
}

// markOn is the colour of a marker drawn on a bar of colour bar: black, or grey on a black
// bar (hybrid's), where black would vanish and white would vanish above the bar's top.
func markOn(bar color.Color) color.Color {
	if r, g, b, _ := bar.RGBA(); r+g+b < 0x3000 {
		return color.Gray{Y: 0xa0}
	}
	return color.Black
}
