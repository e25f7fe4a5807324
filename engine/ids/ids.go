// Package ids makes identifiers: random ones for new records and the
// deterministic run id that is an occurrence's idempotency key (RFC-0008 §8.5).
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"io"
	"time"
)

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	randLen = 16
	// accept is the largest multiple of len(alnum) that fits in a byte; bytes
	// at or above it are rejected so every character is equally likely.
	accept = 256 - 256%len(alnum) // 248

	crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	runLen    = 20 // 20 chars × 5 bits = the first 100 bits of the digest

	// OccurrenceLayout is how an occurrence instant enters the run id (and how
	// instants are stored): UTC, milliseconds.
	OccurrenceLayout = "2006-01-02T15:04:05.000Z"
)

// New returns prefix + "_" + 16 random characters from [A-Za-z0-9], read from
// crypto/rand. Prefixes in use: "rel", "snp", "user", "site", "aud".
func New(prefix string) string {
	id, err := NewFrom(prefix, rand.Reader)
	if err != nil {
		// crypto/rand's Reader does not fail (Go ≥ 1.24 crashes inside it instead).
		panic("ids: crypto/rand: " + err.Error())
	}
	return id
}

// NewFrom is New with the randomness read from r (tests pass a fixed reader).
// It fails only when r does.
func NewFrom(prefix string, r io.Reader) (string, error) {
	out := make([]byte, 0, len(prefix)+1+randLen)
	out = append(out, prefix...)
	out = append(out, '_')
	var buf [32]byte // ~3% of bytes are rejected, so one read nearly always suffices
	for n := 0; n < randLen; {
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) >= accept {
				continue
			}
			out = append(out, alnum[int(b)%len(alnum)])
			if n++; n == randLen {
				break
			}
		}
	}
	return string(out), nil
}

// RunID is the deterministic id of one occurrence of a subject (a release or an
// automation): "run_" + Crockford base32 of the first 100 bits of
// SHA-256(subjectID + "\n" + occurrenceAt in OccurrenceLayout). Every tick that
// reaches the same occurrence computes the same id, whatever zone the instant
// carries; instants within the same millisecond share an id.
func RunID(subjectID string, occurrenceAt time.Time) string {
	sum := sha256.Sum256([]byte(subjectID + "\n" + occurrenceAt.UTC().Format(OccurrenceLayout)))
	out := make([]byte, 4, 4+runLen)
	copy(out, "run_")
	// Big-endian: character i holds bits 5i..5i+4, most significant bit first.
	for i := range runLen {
		v := 0
		for bit := i * 5; bit < i*5+5; bit++ {
			v = v<<1 | int(sum[bit/8]>>(7-bit%8)&1)
		}
		out = append(out, crockford[v])
	}
	return string(out)
}
