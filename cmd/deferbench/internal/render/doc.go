// Package render writes what analysis found: report.md (WriteReport: trust flags, which
// strategy to pick, the rankings, the tables, the plots), the charts as SVG and PNG
// (PlotWith, gonum.org/v1/plot) and the compare formats (WriteCompare: text, markdown, csv,
// json). It measures nothing and reads no file.
package render
