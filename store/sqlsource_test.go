package store

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The store's SQL as its source says it: every statement text passed to a
// database/sql call (ExecContext, QueryContext, QueryRowContext,
// PrepareContext and their forms without a context) in the store's
// non-test files, evaluated from what it is made of: string literals,
// constants and package-level variables, a function's locals (every value
// they are given on any path, and with and without each += to them), a
// range over a literal list, and a function's parameters (the value each
// caller passes, evaluated where it is called). A package-level value
// built by a call (snapshotRefs("?1", ""), foldSQL(…)) is taken from the
// running package: parts, keyed by the call's text. What none of that
// evaluates (a filter's WHERE joined from a slice, an IN list as long as
// its values, a builder) is a built site: its function must be in
// builtVariants (statements_all_test.go), which asks each variant of the
// statement through the store's own method.

// sqlCalls are the database/sql methods that take a statement's text, by
// the index of that argument.
var sqlCalls = map[string]int{
	"ExecContext": 1, "QueryContext": 1, "QueryRowContext": 1, "PrepareContext": 1,
	"Exec": 0, "Query": 0, "QueryRow": 0, "Prepare": 0,
}

// maxVariants bounds the texts one site evaluates to.
const maxVariants = 64

// sourceSite is one place the store sends a statement from.
type sourceSite struct {
	Pos   string   // file:line of the call
	Func  string   // the function it is in (Type.Method for a method)
	Texts []string // every text it sends; none for a built site
	Why   string   // for a built site: the part that could not be evaluated
}

type scope struct {
	name   string // the function's name (a closure's: the variable it is assigned to)
	params []string
	locals map[string]*local
	outer  *scope
	fn     string // the enclosing declared function, for messages
	// driver: the connector's own code (meter.go), which passes on the
	// texts it is given; the one text of its own, the write lock at
	// BEGIN, runs in every write transaction of the PostgreSQL run.
	driver bool
	// returns are its return statements' results, for a caller's
	// a, b := f(…)
	returns [][]ast.Expr
}

type local struct {
	values  []ast.Expr // := and = (each a path's value; a callResult for a, b := f(…))
	appends []ast.Expr // += (each may or may not have happened)
	ranged  ast.Expr   // for _, v := range <literal list>
	scope   *scope
}

// callResult is the i-th result of a call, as a local's value.
type callResult struct {
	ast.Expr // the call
	i        int
}

type callRef struct {
	call  *ast.CallExpr
	scope *scope
}

type storeSource struct {
	fset    *token.FileSet
	decls   map[string]ast.Expr  // package-level const and var values
	parts   map[string]string    // values of the running package, by expression text
	callers map[string][]callRef // calls by the callee's name
	funcs   map[string]*scope    // declared functions by name
	sites   []sourceSite
	pending []pendingSite
}

type pendingSite struct {
	call  *ast.CallExpr
	arg   ast.Expr
	scope *scope
}

// storeSites parses the store's non-test Go files and evaluates every site.
func storeSites(tb testing.TB, parts map[string]string) []sourceSite {
	tb.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	s := &storeSource{fset: token.NewFileSet(), decls: map[string]ast.Expr{}, parts: parts, callers: map[string][]callRef{}, funcs: map[string]*scope{}}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, name, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) {
				for _, spec := range g.Specs {
					v := spec.(*ast.ValueSpec)
					for i, n := range v.Names {
						if i < len(v.Values) {
							s.decls[n.Name] = v.Values[i]
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			full := name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				full = recvName(fn.Recv.List[0].Type) + "." + name
			}
			sc := &scope{name: name, params: paramNames(fn.Type), fn: full, driver: s.fset.Position(fn.Pos()).Filename == "meter.go"}
			s.funcs[name] = sc
			s.walk(sc, fn.Body)
		}
	}
	for _, p := range s.pending {
		site := sourceSite{Pos: s.fset.Position(p.call.Pos()).String(), Func: p.scope.fn}
		site.Texts, site.Why = s.eval(p.arg, p.scope, 0)
		s.sites = append(s.sites, site)
	}
	return s.sites
}

func paramNames(t *ast.FuncType) []string {
	var out []string
	for _, f := range t.Params.List {
		if len(f.Names) == 0 {
			out = append(out, "_")
		}
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
	}
	return out
}

// walk notes sc's locals, the calls it makes and its statements; a
// closure is a scope of its own inside sc.
func (s *storeSource) walk(sc *scope, body ast.Node) {
	sc.locals = map[string]*local{}
	get := func(name string) *local {
		if sc.locals[name] == nil {
			sc.locals[name] = &local{scope: sc}
		}
		return sc.locals[name]
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				v := get(id.Name)
				if len(n.Rhs) != len(n.Lhs) {
					v.values = append(v.values, callResult{n.Rhs[0], i})
					continue
				}
				if lit, ok := n.Rhs[i].(*ast.FuncLit); ok {
					s.walk(&scope{name: id.Name, params: paramNames(lit.Type), outer: sc, fn: sc.fn, driver: sc.driver}, lit.Body)
					continue
				}
				switch n.Tok {
				case token.DEFINE, token.ASSIGN:
					v.values = append(v.values, n.Rhs[i])
				case token.ADD_ASSIGN:
					v.appends = append(v.appends, n.Rhs[i])
				}
			}
			for _, r := range n.Rhs {
				if _, ok := r.(*ast.FuncLit); !ok {
					s.walkExprs(sc, r)
				}
			}
			return false
		case *ast.ValueSpec:
			for i, id := range n.Names {
				v := get(id.Name)
				if i < len(n.Values) {
					v.values = append(v.values, n.Values[i])
				} else {
					v.values = append(v.values, &ast.BasicLit{Kind: token.STRING, Value: `""`})
				}
			}
		case *ast.RangeStmt:
			if id, ok := n.Value.(*ast.Ident); ok {
				if lit, ok := n.X.(*ast.CompositeLit); ok {
					get(id.Name).ranged = lit
				}
			}
		case *ast.FuncLit:
			s.walk(&scope{name: "", params: paramNames(n.Type), outer: sc, fn: sc.fn, driver: sc.driver}, n.Body)
			return false
		case *ast.ReturnStmt:
			sc.returns = append(sc.returns, n.Results)
		case *ast.CallExpr:
			s.noteCall(sc, n)
		}
		return true
	})
}

// walkExprs walks an expression on an assignment's right side (calls in it).
func (s *storeSource) walkExprs(sc *scope, e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			s.walk(&scope{params: paramNames(n.Type), outer: sc, fn: sc.fn, driver: sc.driver}, n.Body)
			return false
		case *ast.CallExpr:
			s.noteCall(sc, n)
		}
		return true
	})
}

func (s *storeSource) noteCall(sc *scope, call *ast.CallExpr) {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		s.callers[f.Name] = append(s.callers[f.Name], callRef{call, sc})
	case *ast.SelectorExpr:
		s.callers[f.Sel.Name] = append(s.callers[f.Sel.Name], callRef{call, sc})
		if at, ok := sqlCalls[f.Sel.Name]; ok && len(call.Args) > at && !sc.driver {
			s.pending = append(s.pending, pendingSite{call, call.Args[at], sc})
		}
	}
}

func recvName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// eval is every text e can have in sc, or what it depends on that cannot
// be evaluated.
func (s *storeSource) eval(e ast.Expr, sc *scope, depth int) ([]string, string) {
	if depth > 20 {
		return nil, "too deep: " + exprText(e)
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			if v, err := strconv.Unquote(e.Value); err == nil {
				return []string{v}, ""
			}
		}
	case *ast.ParenExpr:
		return s.eval(e.X, sc, depth+1)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			l, why := s.eval(e.X, sc, depth+1)
			if why != "" {
				return nil, why
			}
			r, why := s.eval(e.Y, sc, depth+1)
			if why != "" {
				return nil, why
			}
			var out []string
			for _, a := range l {
				for _, b := range r {
					out = append(out, a+b)
				}
			}
			return bounded(out)
		}
	case *ast.Ident:
		return s.evalName(e.Name, sc, depth)
	}
	if v, ok := s.parts[exprText(e)]; ok {
		return []string{v}, ""
	}
	return nil, exprText(e)
}

func (s *storeSource) evalName(name string, sc *scope, depth int) ([]string, string) {
	for in := sc; in != nil; in = in.outer {
		if v, ok := in.locals[name]; ok {
			return s.evalLocal(name, v, depth)
		}
		if i := slices.Index(in.params, name); i >= 0 {
			return s.evalParam(name, in, i, depth)
		}
	}
	if v, ok := s.parts[name]; ok {
		return []string{v}, ""
	}
	if v, ok := s.decls[name]; ok {
		return s.eval(v, nil, depth+1)
	}
	return nil, name
}

func (s *storeSource) evalLocal(name string, v *local, depth int) ([]string, string) {
	var out []string
	if v.ranged != nil {
		for _, el := range v.ranged.(*ast.CompositeLit).Elts {
			texts, why := s.eval(el, v.scope, depth+1)
			if why != "" {
				return nil, why
			}
			out = append(out, texts...)
		}
		return bounded(out)
	}
	for _, val := range v.values {
		if r, ok := val.(callResult); ok {
			texts, why := s.evalResult(r, depth)
			if why != "" {
				return nil, name + " (" + why + ")"
			}
			out = append(out, texts...)
			continue
		}
		texts, why := s.eval(val, v.scope, depth+1)
		if why != "" {
			return nil, why
		}
		out = append(out, texts...)
	}
	for _, app := range v.appends {
		texts, why := s.eval(app, v.scope, depth+1)
		if why != "" {
			return nil, why
		}
		for _, base := range out {
			for _, t := range texts {
				out = append(out, base+t)
			}
		}
	}
	return bounded(out)
}

// evalResult is every text a declared function of the store returns as
// r's result (but "", an error's).
func (s *storeSource) evalResult(r callResult, depth int) ([]string, string) {
	call, ok := r.Expr.(*ast.CallExpr)
	if !ok {
		return nil, exprText(r.Expr)
	}
	var name string
	switch f := call.Fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	fn := s.funcs[name]
	if fn == nil {
		return nil, "a result of " + exprText(call)
	}
	var out []string
	for _, results := range fn.returns {
		if r.i >= len(results) {
			return nil, "a result of " + exprText(call)
		}
		texts, why := s.eval(results[r.i], fn, depth+1)
		if why != "" {
			return nil, why
		}
		for _, t := range texts {
			if t != "" {
				out = append(out, t)
			}
		}
	}
	return bounded(out)
}

// evalParam is every value sc's callers pass as its i-th parameter.
func (s *storeSource) evalParam(name string, sc *scope, i, depth int) ([]string, string) {
	if sc.name == "" {
		return nil, name + " (a parameter of a closure)"
	}
	var out []string
	for _, c := range s.callers[sc.name] {
		if i >= len(c.call.Args) {
			continue
		}
		texts, why := s.eval(c.call.Args[i], c.scope, depth+1)
		if why != "" {
			return nil, why
		}
		out = append(out, texts...)
	}
	if len(out) == 0 {
		return nil, name + " (a parameter of " + sc.name + ", called nowhere)"
	}
	return bounded(out)
}

// bounded is texts without repeats, or an error when there are too many.
func bounded(texts []string) ([]string, string) {
	slices.Sort(texts)
	texts = slices.Compact(texts)
	if len(texts) > maxVariants {
		return nil, fmt.Sprintf("more than %d variants", maxVariants)
	}
	return texts, ""
}

// exprText is a short text of e, for messages and the parts' keys.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = exprText(a)
		}
		return exprText(e.Fun) + "(" + strings.Join(args, ", ") + ")"
	case *ast.BinaryExpr:
		return exprText(e.X) + " " + e.Op.String() + " " + exprText(e.Y)
	case *ast.ParenExpr:
		return "(" + exprText(e.X) + ")"
	case *ast.IndexExpr:
		return exprText(e.X) + "[" + exprText(e.Index) + "]"
	}
	return fmt.Sprintf("%T", e)
}

// sourceParts are the package-level values the store's statements are
// made of that a call builds, by the call's text in the source.
func sourceParts() map[string]string {
	parts := map[string]string{
		`prefixed("f.", findingColumns)`:           prefixed("f.", findingColumns),
		"foldSQL(`json_extract(body, '$.title')`)": foldSQL(`json_extract(body, '$.title')`),
		"foldSQL(`COALESCE(json_extract(body, '$.title'), '') || ' ' || COALESCE(json_extract(body, '$.slug'), '') || ' ' || COALESCE(json_extract(body, '$.body'), '')`)": foldSQL(`COALESCE(json_extract(body, '$.title'), '') || ' ' || COALESCE(json_extract(body, '$.slug'), '') || ' ' || COALESCE(json_extract(body, '$.body'), '')`),
	}
	live := "(SELECT published_snapshot_id FROM sites WHERE id = ?1)"
	for _, a := range [][2]string{{"?1", ""}, {"?1", "?2"}, {"?2", ""}, {live, ""}, {live, "?2"}} {
		call := fmt.Sprintf("snapshotRefs(%q, %q)", a[0], a[1])
		parts[call] = snapshotRefs(a[0], a[1])
		parts["liveNodesOf("+call+")"] = liveNodesOf(snapshotRefs(a[0], a[1]))
	}
	return parts
}
