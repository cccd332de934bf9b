// Package html writes report.html: one self-contained page (inline CSS,
// inline SVG plots drawn by package reports/plots, a short script that
// only sorts tables) from a Report of plain data. Package reports fills
// the Report from Runs and sweeps; any other producer of a comparison
// can fill one too.
package html
