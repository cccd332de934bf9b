// Package plots draws the reports' figures with gonum/plot: the
// markdown report's plots of a comparison (TTFT CDF, throughput, service
// per user, VTC counters, hit rate per backend, multi-bin targets) as
// SVG or PNG files, a sweep's capacity curve and Pareto plot, and the
// HTML report's plots as SVG documents. It reads a Run's figures from
// package metrics and a sweep's from package verdict, and lays out no
// page: package reports writes the markdown around the files and package
// reports/html inlines the SVG.
package plots
