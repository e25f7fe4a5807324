package store

import (
	"context"
	"database/sql/driver"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// The store's statements are written once, in the SQL that SQLite and
// PostgreSQL share, and run on PostgreSQL after postgresSQL has rewritten
// the few things the two spell differently:
//
//   - parameters: SQLite's ? and ?N become $N (a ? after ?N is one more
//     than the highest so far, as SQLite numbers it; a parameter followed
//     by a word gets a space, which PostgreSQL needs);
//   - query planner hints: SQLite's INDEXED BY, NOT INDEXED and unary +
//     (which keeps a column off an index) are dropped; PostgreSQL plans by
//     itself;
//   - JSON builders: json_object, json_array and json_group_array become
//     json_build_object, json_build_array and json_agg where called.
//
// Nothing inside quotes ('text', "name") or comments (-- and /* */) is
// rewritten. Each text is rewritten once per process and kept
// (postgresSQL).
//
// SQLite's other functions the store uses (json_extract, json_each, json,
// unixepoch, julianday, strftime with one format and a seconds modifier,
// instr, two-value max, group_concat) exist on PostgreSQL as functions of
// the same name and meaning, made by its first migration
// (migrations/postgres/0032_schema.sql). What cannot be said the same way
// in both is not written: a comparison used as a number, an integer read
// out of JSON without CAST, INSERT OR IGNORE. What has no shared spelling
// at all is each engine's own, chosen in Go: the migrations
// (migrations/postgres), Generation's query, the backup (VACUUM INTO), the
// instances' wake-ups (pg_notify, LISTEN) and clock.
//
// Why a rewrite and not two texts of each statement (measured in issue 37;
// BenchmarkPostgresSQL logs the census): of the 287 distinct texts the
// store's source sends, 17 read the same on both engines, 229 differ only
// in how parameters are written, and 41 also need a hint dropped (18 a
// unary +, 9 INDEXED BY) or a JSON builder renamed (15). All of it is
// mechanical and none of it changes a statement's meaning, so one text
// per statement keeps the two engines from drifting apart; two texts
// would double 270 statements for four rules. The rewrite costs about
// 13 µs once per statement per process (under 10 ms for all of them) and a
// map lookup (about 60 ns, no allocation) on every use after, against
// about 77 µs for the smallest indexed read through the store on a local
// server (21 µs on SQLite).
//
// The rules are held by TestRewriteForPostgres, one case each, with what
// must stay as it is. TestEveryStatementCompiles prepares every statement
// the store's source sends (found by parsing it, each shape of a built
// statement asked through its method) on SQLite, and rewritten on
// PostgreSQL in the conformance run: a statement one engine rejects fails
// there, whether or not another test runs it.

// verbatim, as a context value, sends a statement to PostgreSQL as written:
// the migrations, which are in PostgreSQL's own SQL.
type verbatim struct{}

// writeLockSQL is the lock every write transaction on PostgreSQL takes
// first, for the rest of the transaction: one writer at a time across every
// instance, as SQLite has one in its file. The key is any fixed number of
// Studio's own ("Studio" in ASCII).
const writeLockSQL = `SELECT pg_advisory_xact_lock(91754604586863)`

// siteWriteLockSQL is what a site's publish (ApplyRelease) and the tick's
// claim (ClaimRelease) take instead: the lock above shared, so every other
// write still waits for them and they for it, and their site's own lock
// ($1, a hash of the site's id, in the two-number key space that never
// meets the one above), so those of one site take turns. Those of
// different sites run side by side: each is guarded statements on its own
// site's rows and inserts of new ones, and the instances' schedulers no
// longer queue for one lock.
const siteWriteLockSQL = `SELECT pg_advisory_xact_lock_shared(91754604586863), pg_advisory_xact_lock(917546, $1)`

// siteWrite, as a context value, asks for siteWriteLockSQL at BEGIN: the
// site's id.
type siteWrite struct{}

// forSite marks ctx's write transaction as touching siteID's rows only,
// with guards that hold whatever other sites' writes do at the same time.
func forSite(ctx context.Context, siteID string) context.Context {
	return context.WithValue(ctx, siteWrite{}, siteID)
}

// writeLock is the lock BEGIN takes on PostgreSQL for ctx's transaction.
func writeLock(ctx context.Context) (string, []driver.NamedValue) {
	site, _ := ctx.Value(siteWrite{}).(string)
	if site == "" {
		return writeLockSQL, nil
	}
	h := fnv.New32a()
	h.Write([]byte(site))
	return siteWriteLockSQL, []driver.NamedValue{{Ordinal: 1, Value: int64(int32(h.Sum32()))}}
}

var rewritten sync.Map // statement → its PostgreSQL text

// postgresSQL is q as PostgreSQL runs it. Statements are a fixed set,
// so each is rewritten once.
func postgresSQL(q string) string {
	if v, ok := rewritten.Load(q); ok {
		return v.(string)
	}
	pg := rewriteForPostgres(q)
	rewritten.Store(q, pg)
	return pg
}

var renamed = map[string]string{
	"json_object":      "json_build_object",
	"json_array":       "json_build_array",
	"json_group_array": "json_agg",
}

// precedesOperand holds the keywords after which a + is unary.
var precedesOperand = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "WHERE": true, "ON": true, "SELECT": true, "WHEN": true,
	"THEN": true, "ELSE": true, "BY": true, "SET": true, "IN": true, "IS": true, "HAVING": true,
	"RETURNING": true, "BETWEEN": true, "CASE": true,
}

func rewriteForPostgres(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	highest := 0    // the highest parameter number so far
	operand := true // whether what comes next starts an operand (so a + there is unary)
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := closing(q, i)
			b.WriteString(q[i:end])
			i, operand = end, false
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q) - i
			} else {
				end += 4
			}
			b.WriteString(q[i : i+end])
			i += end
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			highest = max(highest, n)
			b.WriteString("$" + strconv.Itoa(n))
			if j < len(q) && isWordPart(q[j]) {
				b.WriteByte(' ') // ?AND is SQLite's; $1AND is PostgreSQL's trailing junk
			}
			i, operand = j, false
		case c == '+' && operand:
			i++ // unary plus: SQLite's way of keeping a column off an index
		case isWordStart(c):
			j := i
			for j < len(q) && isWordPart(q[j]) {
				j++
			}
			word := q[i:j]
			upper := strings.ToUpper(word)
			if next, after := nextWord(q, j); upper == "INDEXED" && strings.EqualFold(next, "BY") {
				_, j = nextWord(q, after) // the index's name
				i = j
				continue
			} else if upper == "NOT" && strings.EqualFold(next, "INDEXED") {
				i = after
				continue
			}
			if to, ok := renamed[strings.ToLower(word)]; ok && strings.HasPrefix(strings.TrimLeft(q[j:], " \t\n"), "(") {
				word = to
			}
			b.WriteString(word)
			i, operand = j, precedesOperand[upper]
		case c >= '0' && c <= '9':
			j := i
			for j < len(q) && (isWordPart(q[j]) || q[j] == '.') {
				j++
			}
			b.WriteString(q[i:j])
			i, operand = j, false
		default:
			b.WriteByte(c)
			i++
			if c == ')' {
				operand = false
			} else if !unicode.IsSpace(rune(c)) && c != '.' {
				operand = true // an operator, a comma or an opening parenthesis
			}
		}
	}
	return b.String()
}

// closing is the index just past the quoted text that starts at i (a quote
// doubled inside it is one quote).
func closing(q string, i int) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		if q[j] == quote {
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// nextWord is the word after the blanks from i, and the index past it.
func nextWord(q string, i int) (string, int) {
	for i < len(q) && unicode.IsSpace(rune(q[i])) {
		i++
	}
	j := i
	for j < len(q) && isWordPart(q[j]) {
		j++
	}
	return q[i:j], j
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isWordPart(c byte) bool { return isWordStart(c) || (c >= '0' && c <= '9') }
