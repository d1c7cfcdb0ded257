// Package render writes what analysis found: report.md (WriteReport: the pick per kind of
// need and how sure it is, the trust flags, which strategy to pick per requirement, the
// groups per headline metric), details.md (WriteDetails: the verdicts per variant, the
// rankings with ratio CIs, the tables, the plots), the charts as SVG and PNG (PlotWith,
// gonum.org/v1/plot) and the compare formats (WriteCompare: text, markdown, csv, json). It
// measures nothing and reads no file.
package render
