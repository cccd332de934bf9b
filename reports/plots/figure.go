package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // registers the png format
	_ "gonum.org/v1/plot/vg/vgsvg" // registers the svg format
)

// palette is a ten-colour qualitative palette (Tableau 10), one colour per
// run or user, distinguishable in print and by most colour-blind readers.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// dashes cycle after the palette is used up, so an eleventh line differs
// from the first.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

func lineColor(i int) color.Color { return palette[i%len(palette)] }
func lineDash(i int) []vg.Length  { return dashes[(i/len(palette))%len(dashes)] }

// newPlot returns a plot with a title, axis labels, a grid and tick
// labels with SI suffixes.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = siTicks{}
	p.Y.Tick.Marker = siTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// figure is one plot file: panels laid out in rows and columns, and an
// optional legend shared by all panels, drawn in a column on the right.
type figure struct {
	grid   [][]*plot.Plot
	legend *legend
}

// legend is a figure's shared legend.
type legend struct {
	l plot.Legend
	n int
	// w is the width of the widest entry: thumbnail, space and text.
	w vg.Length
}

// add adds an entry.
func (l *legend) add(name string, thumbs ...plot.Thumbnailer) {
	l.l.Add(name, thumbs...)
	l.n++
	l.w = max(l.w, l.l.ThumbnailWidth+l.l.TextStyle.Width(" "+name))
}

// Bounds of a figure's legend column: at least minLegendWidth, wide
// enough for its widest entry, at most maxLegendWidth.
const (
	minLegendWidth = vg.Inch * 1.2
	maxLegendWidth = vg.Inch * 2.8
)

// width is the width of the legend's column, margins included.
func (l *legend) width() vg.Length {
	// 30 % spare: a viewer without the font gonum measured with may
	// draw the text wider (DejaVu Serif is about that much wider).
	return min(maxLegendWidth, max(minLegendWidth, l.w*1.3+vg.Millimeter*4))
}

// newLegend returns an empty shared legend.
func newLegend() *legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(9)
	l.ThumbnailWidth = vg.Points(18)
	return &legend{l: l}
}

// saveIfDrawn writes f into path (SVG, or PNG for a .png path), w by h,
// and reports whether it did: a figure without panels writes nothing.
func saveIfDrawn(path string, w, h vg.Length, f figure) (bool, error) {
	if len(f.grid) == 0 {
		return false, nil
	}
	if err := saveFigure(path, w, h, f); err != nil {
		return false, err
	}
	return true, nil
}

// saveFigure draws f into path (format from its extension: svg or png)
// on a white background.
func saveFigure(path string, w, h vg.Length, f figure) error {
	format := "svg"
	if len(path) > 4 && path[len(path)-4:] == ".png" {
		format = "png"
	}
	b, err := renderFigure(format, w, h, f)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// renderFigure draws f, w by h, in format (svg or png) on a white
// background and returns the encoded image.
func renderFigure(format string, w, h vg.Length, f figure) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	plots := dc
	if f.legend != nil && f.legend.n > 0 {
		split := dc.Max.X - f.legend.width()
		plots = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: dc.Min, Max: vg.Point{X: split, Y: dc.Max.Y}}}
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: split + vg.Millimeter*2, Y: dc.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: dc.Max.Y - vg.Millimeter*8}}}
		f.legend.l.Draw(lc)
	}
	drawGrid(plots, f.grid)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if format == "svg" {
		b = bytes.ReplaceAll(b, []byte(svgFont), []byte(svgFontFallbacks))
	}
	return b, nil
}

// gonum lays text out with Liberation Serif's metrics and names only that
// font in an SVG. Times New Roman has the same metrics, so naming it next
// keeps labels and legends fitting on systems without Liberation; serif
// is the last resort.
const (
	svgFont          = "font-family:Liberation Serif;"
	svgFontFallbacks = "font-family:'Liberation Serif','Times New Roman',Times,serif;"
)

// drawGrid lays the panels out in dc and draws them.
func drawGrid(dc draw.Canvas, grid [][]*plot.Plot) {
	cols := 0
	for _, row := range grid {
		cols = max(cols, len(row))
	}
	tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(grid, tiles, dc)
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}
