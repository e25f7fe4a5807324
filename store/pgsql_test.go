package store

import "testing"

func TestRewriteForPostgres(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT * FROM t WHERE a = ? AND b = ?`, `SELECT * FROM t WHERE a = $1 AND b = $2`},
		{`WHERE a = ?2 OR b = ?1 OR c = ?`, `WHERE a = $2 OR b = $1 OR c = $3`},
		{`SELECT '?', "a?b" FROM t WHERE x = ?`, `SELECT '?', "a?b" FROM t WHERE x = $1`},
		{`SELECT 'it''s ?' WHERE y = ?`, `SELECT 'it''s ?' WHERE y = $1`},
		{"SELECT 1 -- why?\nWHERE z = ?", "SELECT 1 -- why?\nWHERE z = $1"},
		{`FROM snapshot_refs x INDEXED BY snapshot_refs_head WHERE`, `FROM snapshot_refs x  WHERE`},
		{`FROM nodes NOT INDEXED WHERE`, `FROM nodes  WHERE`},
		{`WHERE id = ? AND +site_id = ?`, `WHERE id = $1 AND site_id = $2`},
		{`WHERE (+r.site_id = ?)`, `WHERE (r.site_id = $1)`},
		{`SET rev = rev + 1, n = 2 + 3, m = (x) + y`, `SET rev = rev + 1, n = 2 + 3, m = (x) + y`},
		{`SELECT json_group_array(json_object('a', b)), json_array (c)`, `SELECT json_agg(json_build_object('a', b)), json_build_array (c)`},
		{`SELECT json_object FROM t`, `SELECT json_object FROM t`},
	} {
		if got := rewriteForPostgres(c.in); got != c.want {
			t.Errorf("rewriteForPostgres(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
