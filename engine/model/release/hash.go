package release

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// HashPrefix is the version prefix of the binding (§10.4).
const HashPrefix = "rl1:"

// Hash is the rl1: binding of a release's items (§10.4):
//
//	"rl1:" + hex(SHA-256(lines joined by "\n"))
//	lines = ["site <siteId>"] + per item, sorted by node id (byte order):
//	        "<set|remove> <nodeId> <nodeKind> <rev>:<hash>|- <rev>:<hash>|-"  (target, then base)
//
// The time is deliberately not in it (D4). Items are not modified.
func Hash(siteID string, items []Item) string {
	lines := make([]string, len(items))
	order := make([]int, len(items))
	for i, it := range items {
		lines[i] = line(it)
		order[i] = i
	}
	// Ties (only possible with duplicate ids, which ValidateItems refuses) fall
	// back to the whole line, so the hash never depends on input order.
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(items[a].NodeID, items[b].NodeID), strings.Compare(lines[a], lines[b]))
	})
	h := sha256.New()
	h.Write([]byte("site " + siteID))
	for _, i := range order {
		h.Write([]byte("\n" + lines[i]))
	}
	return HashPrefix + hex.EncodeToString(h.Sum(nil))
}

func line(it Item) string {
	b := make([]byte, 0, 128)
	b = append(b, it.Op...)
	b = append(b, ' ')
	b = append(b, it.NodeID...)
	b = append(b, ' ')
	b = append(b, it.NodeKind...)
	b = append(b, ' ')
	b = appendVersion(b, it.Target)
	b = append(b, ' ')
	b = appendVersion(b, it.Base)
	return string(b)
}

func appendVersion(b []byte, v *Version) []byte {
	if v == nil {
		return append(b, '-')
	}
	b = strconv.AppendInt(b, v.Rev, 10)
	b = append(b, ':')
	return append(b, v.Hash...)
}
