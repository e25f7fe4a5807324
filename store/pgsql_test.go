package store

import (
	"regexp"
	"strings"
	"testing"
)

// TestRewriteForPostgres holds each rule of the rewrite (pgsql.go), and
// what it must leave alone: text in quotes and comments, binary plus, a
// word that is only a function's name when called.
func TestRewriteForPostgres(t *testing.T) {
	for _, c := range []struct{ rule, in, want string }{
		// Parameters: ? is the next number, ?N is N, and a ? after ?N
		// is one more than the highest so far (SQLite's numbering).
		{"params", `SELECT * FROM t WHERE a = ? AND b = ?`, `SELECT * FROM t WHERE a = $1 AND b = $2`},
		{"params", `WHERE a = ?2 OR b = ?1 OR c = ?`, `WHERE a = $2 OR b = $1 OR c = $3`},
		{"params", `WHERE a = ?1 AND b = ?1 AND c = ?2`, `WHERE a = $1 AND b = $1 AND c = $2`},
		{"params", `VALUES (?1, ?3, ?)`, `VALUES ($1, $3, $4)`},
		{"params", `SELECT ?12`, `SELECT $12`},
		{"params", `WHERE a=?AND b=?`, `WHERE a=$1 AND b=$2`},
		{"params", `IN (?,?,?)`, `IN ($1,$2,$3)`},
		// Quoted text and identifiers, and comments, are not SQL: nothing
		// in them is rewritten, nor counted as a parameter.
		{"strings", `SELECT '?', "a?b" FROM t WHERE x = ?`, `SELECT '?', "a?b" FROM t WHERE x = $1`},
		{"strings", `SELECT 'it''s ?' WHERE y = ?`, `SELECT 'it''s ?' WHERE y = $1`},
		{"strings", `SELECT 'json_object(a)', '+x', ' INDEXED BY i' WHERE y = ?`, `SELECT 'json_object(a)', '+x', ' INDEXED BY i' WHERE y = $1`},
		{"strings", `SELECT "json_array"(x)`, `SELECT "json_array"(x)`},
		{"strings", `strftime('%Y', at, '+30 seconds')`, `strftime('%Y', at, '+30 seconds')`},
		{"strings", `SELECT '-- not a comment ?' WHERE z = ?`, `SELECT '-- not a comment ?' WHERE z = $1`},
		{"comments", "SELECT 1 -- why?\nWHERE z = ?", "SELECT 1 -- why?\nWHERE z = $1"},
		{"comments", "SELECT 1 -- it's json_object( + ?\nWHERE z = ?", "SELECT 1 -- it's json_object( + ?\nWHERE z = $1"},
		{"comments", "WHERE a = ? -- last ?", "WHERE a = $1 -- last ?"},
		{"comments", "SELECT /* ? it's json_array( */ a WHERE b = ?", "SELECT /* ? it's json_array( */ a WHERE b = $1"},
		{"comments", "SELECT a /* unclosed ?", "SELECT a /* unclosed ?"},
		{"comments", `SELECT a / ? FROM t`, `SELECT a / $1 FROM t`},
		// Planner hints: SQLite's index choices are dropped.
		{"hints", `FROM snapshot_refs x INDEXED BY snapshot_refs_head WHERE`, `FROM snapshot_refs x  WHERE`},
		{"hints", "FROM r indexed\n by r_site WHERE", "FROM r  WHERE"},
		{"hints", `FROM nodes NOT INDEXED WHERE`, `FROM nodes  WHERE`},
		{"hints", `WHERE id = ? AND +site_id = ?`, `WHERE id = $1 AND site_id = $2`},
		{"hints", `WHERE (+r.site_id = ?)`, `WHERE (r.site_id = $1)`},
		{"hints", `ORDER BY +r.execute_at, id`, `ORDER BY r.execute_at, id`},
		{"hints", `WHERE a = +b OR c IN (+d, +e)`, `WHERE a = b OR c IN (d, e)`},
		{"hints", `CASE WHEN +a THEN +b ELSE +c END`, `CASE WHEN a THEN b ELSE c END`},
		// A plus between two operands is addition, and stays.
		{"plus", `SET rev = rev + 1, n = 2 + 3, m = (x) + y`, `SET rev = rev + 1, n = 2 + 3, m = (x) + y`},
		{"plus", `SELECT ? + 1, 'a' + 1, "c" + 1, 1.5 + 2`, `SELECT $1 + 1, 'a' + 1, "c" + 1, 1.5 + 2`},
		{"plus", `SELECT CASE WHEN a THEN 1 END + 1, NULL + 1`, `SELECT CASE WHEN a THEN 1 END + 1, NULL + 1`},
		{"plus", `SELECT COALESCE(MAX(seq), 0) + 1`, `SELECT COALESCE(MAX(seq), 0) + 1`},
		{"plus", `SELECT t.a + t.b`, `SELECT t.a + t.b`},
		// JSON builders: renamed where called, nested or not, any case.
		{"json", `SELECT json_group_array(json_object('a', b)), json_array (c)`, `SELECT json_agg(json_build_object('a', b)), json_build_array (c)`},
		{"json", `SELECT json_object('k', json_array(json_object('x', ?), ?), 'n', json_group_array(?))`,
			`SELECT json_build_object('k', json_build_array(json_build_object('x', $1), $2), 'n', json_agg($3))`},
		{"json", "SELECT JSON_OBJECT('a', 1), Json_Array(\n2)", "SELECT json_build_object('a', 1), json_build_array(\n2)"},
		{"json", `SELECT json_object FROM t`, `SELECT json_object FROM t`},
		{"json", `SELECT json_objects(a), my_json_array(b), json_extract(c, '$.a')`, `SELECT json_objects(a), my_json_array(b), json_extract(c, '$.a')`},
		// The rest is SQLite's and PostgreSQL's alike, and passes as it is.
		{"same", `SELECT a FROM t WHERE b = 'x' ORDER BY c DESC LIMIT 3`, `SELECT a FROM t WHERE b = 'x' ORDER BY c DESC LIMIT 3`},
		{"same", "SELECT 1e3, x1, _y\n\tFROM t", "SELECT 1e3, x1, _y\n\tFROM t"},
		{"same", `INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET a = excluded.a RETURNING id`, `INSERT INTO t (a) VALUES ($1) ON CONFLICT (a) DO UPDATE SET a = excluded.a RETURNING id`},
	} {
		if got := rewriteForPostgres(c.in); got != c.want {
			t.Errorf("%s: rewriteForPostgres(%q)\n got %q\nwant %q", c.rule, c.in, got, c.want)
		}
	}
}

// TestPostgresSQLCaches: a statement is rewritten once, then read from the
// cache.
func TestPostgresSQLCaches(t *testing.T) {
	q := `SELECT ? AS TestPostgresSQLCaches`
	if got := postgresSQL(q); got != `SELECT $1 AS TestPostgresSQLCaches` {
		t.Fatalf("postgresSQL = %q", got)
	}
	if v, ok := rewritten.Load(q); !ok || v != `SELECT $1 AS TestPostgresSQLCaches` {
		t.Fatalf("not cached: %v %v", v, ok)
	}
	if n := testing.AllocsPerRun(100, func() { postgresSQL(q) }); n != 0 {
		t.Errorf("a cached statement costs %v allocations", n)
	}
}

// BenchmarkPostgresSQL measures the rewrite per statement, over every
// statement the store's source sends: rewritten anew (a statement's first
// use in a process) and from the cache (every use after).
func BenchmarkPostgresSQL(b *testing.B) {
	var texts []string
	seen := map[string]bool{}
	bytes := 0
	for _, s := range storeSites(b, sourceParts()) {
		for _, q := range s.Texts {
			if !seen[q] {
				seen[q] = true
				texts = append(texts, q)
				bytes += len(q)
			}
		}
	}
	b.Logf("%d distinct statements, %d bytes on average", len(texts), bytes/len(texts))
	census(b, texts)
	b.Run("rewrite", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			rewriteForPostgres(texts[i%len(texts)])
		}
	})
	b.Run("cached", func(b *testing.B) {
		for _, q := range texts {
			postgresSQL(q)
		}
		for i := 0; b.Loop(); i++ {
			postgresSQL(texts[i%len(texts)])
		}
	})
}

// census logs how the statements differ between the engines: which of
// the rewrite's rules each needs, and which of the functions SQLite has
// and PostgreSQL has from the store's first migration each calls.
func census(b *testing.B, texts []string) {
	rules := []struct {
		name string
		re   *regexp.Regexp
	}{
		{"parameters (? to $N)", regexp.MustCompile(`\?`)},
		{"numbered parameters (?N)", regexp.MustCompile(`\?\d`)},
		{"JSON builders", regexp.MustCompile(`(?i)\b(json_object|json_array|json_group_array)\s*\(`)},
		{"INDEXED BY / NOT INDEXED", regexp.MustCompile(`(?i)\bINDEXED\b`)},
	}
	onlyParams, unchanged, plus := 0, 0, 0
	counts := make([]int, len(rules))
	for _, q := range texts {
		pg := rewriteForPostgres(q)
		if pg == q {
			unchanged++
		}
		more := false
		for i, r := range rules {
			if r.re.MatchString(q) {
				counts[i]++
				more = more || i >= 2
			}
		}
		// a unary plus: the rewrite of q with its pluses kept apart differs
		if strings.ReplaceAll(rewriteForPostgres(strings.ReplaceAll(q, "+", "PLUS_")), "PLUS_", "+") != pg {
			plus++
			more = true
		}
		if !more && pg != q {
			onlyParams++
		}
	}
	b.Logf("%d unchanged by the rewrite, %d changed in their parameters only, %d in more", unchanged, onlyParams, len(texts)-unchanged-onlyParams)
	for i, r := range rules {
		b.Logf("  %-28s %d statements", r.name, counts[i])
	}
	b.Logf("  %-28s %d statements", "unary + (planner hint)", plus)
	for _, f := range []string{"json_extract", "json_each", "json", "unixepoch", "julianday", "strftime", "instr", "max", "group_concat"} {
		re := regexp.MustCompile(`(?i)\b` + f + `\s*\(`)
		if f == "max" { // the two-value max, not the aggregate
			re = regexp.MustCompile(`(?i)\bmax\s*\(([^(),]|\([^()]*\))*,`)
		}
		n := 0
		for _, q := range texts {
			if re.MatchString(q) {
				n++
			}
		}
		b.Logf("  function %-19s %d statements", f, n)
	}
}
