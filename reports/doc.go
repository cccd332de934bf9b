// Package reports renders what a Run, a comparison, a sweep or a plan
// measured: a terminal table, a markdown report with SVG plots, an HTML
// page, CSV and JSON. Package reports/plots draws the plots and package
// reports/html writes the page that reports fills. The figures come from package metrics (a Summary
// per Run) and the decisions from package verdict; reports reads both
// and computes neither. Every metric has one definition, printed in the
// glossary at the end of the markdown report (see Glossary) and listed
// in docs/reports.md.
package reports
