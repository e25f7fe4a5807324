//go:build race

package releases_test

// invRounds is how many rounds the invariant property tests run: the race
// detector makes the pure-Go SQLite about 25 times slower, so fewer.
func invRounds(plain, race int) int { return race }
