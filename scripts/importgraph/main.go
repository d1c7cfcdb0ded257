//go:build ignore

// Importgraph measures how the non-test files of the tool module depend on each other: a file
// depends on another when it uses an identifier declared there (same package or another package of
// the module). It prints, for files and for packages, the number of levels (the longest chain of
// dependencies, counting cycles as one node) and the number of upward dependencies (edges that must
// be removed to leave no cycle: inside each strongly connected component, found greedily after
// Eades, Lin and Smyth, an upper bound on the least such number; an edge between components is
// never upward). Go forbids import cycles, so among packages the count is always 0.
//
//	go run scripts/importgraph/main.go [-v] [dir]   # dir defaults to cmd/deferbench
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type listPkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Module     *struct{ Path string }
	Imports    []string
}

func main() {
	verbose := flag.Bool("v", false, "list the upward edges")
	flag.Parse()
	dir := "cmd/deferbench"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", "./...")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importgraph: go list:", err)
		os.Exit(1)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string]*listPkg{}
	var order []string
	var modPath string
	for {
		var p listPkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			panic(err)
		}
		pkgs[p.ImportPath] = &p
		order = append(order, p.ImportPath)
	}
	abs, _ := filepath.Abs(dir)
	for _, p := range pkgs {
		if p.Dir == abs && p.Module != nil {
			modPath = p.Module.Path
		}
	}
	ours := func(path string) bool { return path == modPath || strings.HasPrefix(path, modPath+"/") }
	fset := token.NewFileSet()
	gc := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(pkgs[path].Export)
	})
	checked := map[string]*types.Package{}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p, ok := checked[path]; ok {
			return p, nil
		}
		return gc.Import(path)
	})
	fileEdges := map[[2]string]bool{}
	why := map[[2]string]map[string]bool{}
	pkgEdges := map[[2]string]bool{}
	var files, pkgNames []string
	for _, path := range order { // go list -deps lists dependencies first
		if !ours(path) {
			continue
		}
		p := pkgs[path]
		pkgNames = append(pkgNames, path)
		var astFiles []*ast.File
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				panic(err)
			}
			astFiles = append(astFiles, af)
			files = append(files, rel(filepath.Join(p.Dir, f), abs))
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		tp, err := conf.Check(path, fset, astFiles, info)
		if err != nil {
			panic(err)
		}
		checked[path] = tp
		for _, imp := range p.Imports {
			if ours(imp) {
				pkgEdges[[2]string{path, imp}] = true
			}
		}
		addUse := func(id token.Pos, obj types.Object) {
			if obj == nil || obj.Pkg() == nil || !ours(obj.Pkg().Path()) || !obj.Pos().IsValid() {
				return
			}
			from := rel(fset.Position(id).Filename, abs)
			to := rel(fset.Position(obj.Pos()).Filename, abs)
			if from != to && !strings.HasSuffix(to, "_test.go") {
				e := [2]string{from, to}
				fileEdges[e] = true
				if why[e] == nil {
					why[e] = map[string]bool{}
				}
				why[e][obj.Name()] = true
			}
		}
		for id, obj := range info.Uses {
			addUse(id.Pos(), obj)
		}
		for sel, s := range info.Selections {
			addUse(sel.Sel.Pos(), s.Obj())
		}
	}
	report("files", files, fileEdges, why, *verbose)
	report("packages", pkgNames, pkgEdges, nil, *verbose)
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func rel(p, base string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// report prints levels and upward edges of the graph nodes/edges.
func report(what string, nodes []string, edges map[[2]string]bool, why map[[2]string]map[string]bool, verbose bool) {
	out := map[string][]string{}
	for e := range edges {
		out[e[0]] = append(out[e[0]], e[1])
	}
	for _, n := range nodes {
		sort.Strings(out[n])
	}
	// Strongly connected components (Tarjan): an edge between two components is never part
	// of a cycle, so only edges inside one can be upward.
	index, low, comp := map[string]int{}, map[string]int{}, map[string]int{}
	var stack []string
	on := map[string]bool{}
	next, ncomp := 0, 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range out[v] {
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			strong(n)
		}
	}
	// Inside each component, a greedy feedback arc set (Eades, Lin, Smyth): repeatedly take
	// sinks to the right, sources to the left, else the node with the largest outdegree minus
	// indegree to the left; an edge pointing left in that order is upward.
	pos := map[string]int{}
	members := map[int][]string{}
	for _, n := range nodes {
		members[comp[n]] = append(members[comp[n]], n)
	}
	for c, ms := range members {
		left := map[string]bool{}
		for _, n := range ms {
			left[n] = true
		}
		in, outd := map[string]int{}, map[string]int{}
		for e := range edges {
			if left[e[0]] && left[e[1]] {
				outd[e[0]]++
				in[e[1]]++
			}
		}
		remove := func(n string) {
			delete(left, n)
			for e := range edges {
				if e[0] == n && left[e[1]] {
					in[e[1]]--
				}
				if e[1] == n && left[e[0]] {
					outd[e[0]]--
				}
			}
		}
		var s1, s2 []string
		for len(left) > 0 {
			changed := true
			for changed {
				changed = false
				for _, n := range sorted(left) {
					if left[n] && outd[n] == 0 {
						s2 = append([]string{n}, s2...)
						remove(n)
						changed = true
					}
				}
				for _, n := range sorted(left) {
					if left[n] && in[n] == 0 {
						s1 = append(s1, n)
						remove(n)
						changed = true
					}
				}
			}
			if len(left) == 0 {
				break
			}
			best, bestD := "", -1<<30
			for _, n := range sorted(left) {
				if d := outd[n] - in[n]; d > bestD {
					best, bestD = n, d
				}
			}
			s1 = append(s1, best)
			remove(best)
		}
		// Tarjan numbers components in reverse topological order (users after what they
		// use get lower numbers): users first means a larger component number first.
		for i, n := range append(s1, s2...) {
			pos[n] = -c*len(nodes) + i
		}
	}
	var up [][2]string
	for e := range edges {
		if pos[e[1]] < pos[e[0]] {
			up = append(up, e)
		}
	}
	// Levels: the longest chain over the graph with the upward edges removed (a DAG), in nodes.
	level := map[string]int{}
	var depth func(string) int
	depth = func(n string) int {
		if l, ok := level[n]; ok {
			return l
		}
		l := 1
		for _, m := range out[n] {
			if pos[m] > pos[n] {
				l = max(l, depth(m)+1)
			}
		}
		level[n] = l
		return l
	}
	most := 0
	for _, n := range nodes {
		most = max(most, depth(n))
	}
	cyclic := 0
	for _, ms := range members {
		if len(ms) > 1 {
			cyclic += len(ms)
		}
	}
	fmt.Printf("%s: %d nodes, %d edges, %d levels, %d upward (%d nodes in cycles)\n", what, len(nodes), len(edges), most, len(up), cyclic)
	if verbose {
		sort.Slice(up, func(i, j int) bool { return up[i][0]+up[i][1] < up[j][0]+up[j][1] })
		for _, e := range up {
			var ids []string
			for id := range why[e] {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			fmt.Printf("  up: %s -> %s (%s)\n", e[0], e[1], strings.Join(ids, ", "))
		}
	}
}

func sorted(m map[string]bool) []string {
	var s []string
	for k, ok := range m {
		if ok {
			s = append(s, k)
		}
	}
	sort.Strings(s)
	return s
}
