package content

import "strings"

// DiffLine is one line of a text diff: Op is ' ' (kept), '-' (only in the
// old text) or '+' (only in the new one).
type DiffLine struct {
	Op   byte
	Text string
}

// maxDiffCells bounds the longest-common-subsequence table; beyond it the
// diff shows the old text removed and the new one added, which is still
// true, only less precise.
const maxDiffCells = 4_000_000

// DiffLines compares two texts line by line (longest common subsequence).
func DiffLines(old, new string) []DiffLine {
	return Diff(splitLines(old), splitLines(new))
}

// Diff compares two sequences of strings (lines, or a review's rendered
// blocks) by their longest common subsequence; each DiffLine's Text is
// one element.
func Diff(a, b []string) []DiffLine {
	if len(a)*len(b) > maxDiffCells {
		out := make([]DiffLine, 0, len(a)+len(b))
		for _, l := range a {
			out = append(out, DiffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, DiffLine{'+', l})
		}
		return out
	}
	// lcs[i][j] is the common length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{'-', a[i]})
			i++
		default:
			out = append(out, DiffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, DiffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, DiffLine{'+', b[j]})
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}
