package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteCompare writes d in format (one of CompareFormats):
//   - text: per unit a table of the old and new medians ± their 95% CI, the change ("~" when
//     not significant, "new: 4 allocs/op" from 0, "?N" without a verdict, reasons under the
//     table), the p-value or "exact", and FAIL with the threshold a row exceeds;
//   - markdown: for a pull-request comment or a CI step summary, at most MarkdownLimit
//     characters: the gate's result, its failures, the other significant changes counted and
//     folded in <details>, then the rest; rows that do not fit are counted, and the full
//     tables are d.Full's (WriteCompareMarkdownFull);
//   - csv: one header line and one line per row;
//   - json: every row with medians, CIs, change, p, method, verdict and gate (see
//     CompareJSON).
func WriteCompare(w io.Writer, format string, d *CompareDoc) error {
	ew := &ErrWriter{W: w}
	if err := writeCompare(ew, format, d); err != nil {
		return err
	}
	return ew.Err
}

func writeCompare(w io.Writer, format string, d *CompareDoc) error {
	switch format {
	case "text":
		return writeCompareText(w, d)
	case "markdown":
		return writeCompareMarkdown(w, d)
	case "csv":
		return writeCompareCSV(w, d)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d.JSON())
	}
	return fmt.Errorf("unknown format %q (valid: %s)", format, strings.Join(CompareFormats, ", "))
}
