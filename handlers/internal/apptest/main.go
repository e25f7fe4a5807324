package apptest

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"studio/engine/identity"
	"studio/locales"
)

// missingKeys are the message keys a page, a fragment or an answer asked
// for while the tests ran that neither message file has: each would have
// shown as the key itself ("editor.new_entry"). The parity test in locales
// finds a literal key no file has, and a key built from a set of values it
// is told about; this finds one built from any value at all, on every page
// any test renders.
var missingKeys struct {
	sync.Mutex
	seen map[string]string // key → where it was asked for
}

// Main is the TestMain of every package whose tests use App: it runs the
// tests, with passwords hashed at bcrypt's least cost, and fails the run if
// a page, a fragment or an answer showed a raw message key.
func Main(m *testing.M) { os.Exit(run(m)) }

// MainCheckingTools is Main for the MCP tests: a run of the whole package
// fails too when a tool the server lists never gave an answer that was
// checked against its outputSchema.
func MainCheckingTools(m *testing.M) {
	code := run(m)
	if f := flag.Lookup("test.run"); code == 0 && f != nil && f.Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		var unchecked []string
		listedTools.Range(func(name, _ any) bool {
			if _, ok := checkedTools.Load(name); !ok {
				unchecked = append(unchecked, name.(string))
			}
			return true
		})
		if len(unchecked) > 0 {
			sort.Strings(unchecked)
			fmt.Fprintf(os.Stderr, "FAIL: no test read an answer of %v and checked it against its outputSchema\n", unchecked)
			code = 1
		}
	}
	os.Exit(code)
}

func run(m *testing.M) int {
	identity.CheapHashesForTests()
	missingKeys.seen = map[string]string{}
	locales.OnMissing(func(key string) {
		missingKeys.Lock()
		defer missingKeys.Unlock()
		if _, ok := missingKeys.seen[key]; !ok {
			missingKeys.seen[key] = caller()
		}
	})
	code := m.Run()
	locales.OnMissing(nil)
	if len(missingKeys.seen) > 0 {
		keys := make([]string, 0, len(missingKeys.seen))
		for k := range missingKeys.seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintln(os.Stderr, "FAIL: raw message keys were shown (no message in en.toml/tr.toml):")
		for _, k := range keys {
			fmt.Fprintf(os.Stderr, "  %s\n    asked for at %s\n", k, missingKeys.seen[k])
		}
		code = 1
	}
	return code
}

// caller is the first frame outside package locales and the runtime that
// asked for a key: the handler or template at fault.
func caller() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.Contains(f.File, "/locales/") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "?"
		}
	}
}
