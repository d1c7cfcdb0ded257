package main

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestDocMatchesHelp checks that the manual in the package doc comment shows exactly what
// `deferbench help` and `deferbench help <command>` print, so the two cannot drift.
func TestDocMatchesHelp(t *testing.T) {
	if _, err := os.Stat("doc.go"); errors.Is(err, fs.ErrNotExist) {
		t.Skip("doc.go is not in the working folder (a test binary run away from its sources, as on a board)")
	}
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	check := func(what string, help []byte) {
		t.Helper()
		var block strings.Builder
		for _, l := range strings.Split(strings.TrimRight(string(help), "\n"), "\n") {
			if l != "" {
				block.WriteString("\t" + l)
			}
			block.WriteString("\n")
		}
		if !strings.Contains(doc, block.String()) {
			t.Errorf("doc.go does not show the output of %s; regenerate the block from:\n%s", what, help)
		}
	}
	var buf bytes.Buffer
	writeUsage(&buf)
	check("deferbench help", buf.Bytes())
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		buf.Reset()
		writeCommandHelp(&buf, c)
		check("deferbench help "+c.name, buf.Bytes())
	}
}
