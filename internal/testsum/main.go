// Command testsum reads `go test -json` and prints what `go test` prints
// without -v — each package's result line and the output of the tests that
// failed — so that make test stays readable while it records every test's
// time. With -times FILE it writes each top-level test's time there; with
// -slowest N and FILEs as arguments it reads such files and prints the N
// slowest tests of the whole run (make test's last lines). With -packages
// FILE it writes each package's time and the instant it ended, to see
// which packages close a run.
//
// It exits 1 when a test, a package or a build failed.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// event is one line of test2json (go doc test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
	Time    time.Time
}

// timing is one top-level test's time.
type timing struct {
	pkg, test string
	seconds   float64
}

// packageTime is one package's time and when it ended.
type packageTime struct {
	pkg     string
	seconds float64
	ended   time.Time
}

func main() {
	times := flag.String("times", "", "write each top-level test's time to this file (package, test, seconds; tab-separated)")
	packages := flag.String("packages", "", "write each package's time and the instant it ended to this file (package, seconds, ended; tab-separated)")
	slowest := flag.Int("slowest", 0, "print the N slowest tests of the times files named as arguments, and nothing else")
	flag.Parse()
	if *slowest > 0 {
		if err := printSlowest(os.Stdout, *slowest, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "testsum:", err)
			os.Exit(2)
		}
		return
	}
	failed, timings, pkgs := filter(os.Stdin, os.Stdout)
	var tests, ended strings.Builder
	for _, t := range timings {
		fmt.Fprintf(&tests, "%s\t%s\t%.2f\n", t.pkg, t.test, t.seconds)
	}
	for _, p := range pkgs {
		fmt.Fprintf(&ended, "%s\t%.2f\t%s\n", p.pkg, p.seconds, p.ended.Format(time.RFC3339Nano))
	}
	for file, text := range map[string]string{*times: tests.String(), *packages: ended.String()} {
		if file == "" {
			continue
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testsum:", err)
			os.Exit(2)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// filter copies in's stream to out as go test without -v would show it,
// and returns whether anything failed, the top-level tests' times and the
// packages'.
func filter(in io.Reader, out io.Writer) (failed bool, timings []timing, packages []packageTime) {
	held := map[string][]string{} // a running test's output, by package and test
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (the toolchain's own words): as it is.
			fmt.Fprintf(out, "%s\n", line)
			if strings.Contains(string(line), "FAIL") {
				failed = true
			}
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" { // without -v a passing package says only "ok"
				fmt.Fprint(out, e.Output) // the package's own lines: ok, FAIL, a panic, a timeout
			}
		case e.Test == "" && e.Action == "pass":
			packages = append(packages, packageTime{e.Package, e.Elapsed, e.Time})
		case e.Test == "" && e.Action == "fail":
			failed = true
			packages = append(packages, packageTime{e.Package, e.Elapsed, e.Time})
			// Tests still running when their package failed (a timeout's
			// panic, a crash): their output says why.
			for _, k := range slices.Sorted(maps.Keys(held)) {
				if strings.HasPrefix(k, e.Package+" ") {
					fmt.Fprintf(out, "--- still running when %s failed: %s\n%s", e.Package, strings.TrimPrefix(k, e.Package+" "), strings.Join(held[k], ""))
					delete(held, k)
				}
			}
		case e.Action == "output":
			held[key] = append(held[key], e.Output)
		case e.Action == "fail":
			failed = true
			fmt.Fprint(out, strings.Join(held[key], ""))
			delete(held, key)
			fallthrough
		case e.Action == "pass" || e.Action == "skip":
			delete(held, key)
			if e.Action != "skip" && e.Test != "" && !strings.Contains(e.Test, "/") {
				timings = append(timings, timing{e.Package, e.Test, e.Elapsed})
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsum:", err)
		failed = true
	}
	return failed, timings, packages
}

// printSlowest prints the n slowest tests recorded in files.
func printSlowest(out io.Writer, n int, files []string) error {
	var all []timing
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			parts := strings.Split(l, "\t")
			if len(parts) != 3 {
				continue
			}
			s, err := strconv.ParseFloat(parts[2], 64)
			if err != nil {
				return fmt.Errorf("%s: %q: %w", f, l, err)
			}
			all = append(all, timing{parts[0], parts[1], s})
		}
	}
	slices.SortFunc(all, func(a, b timing) int { return cmp.Compare(b.seconds, a.seconds) })
	fmt.Fprintf(out, "The %d slowest tests:\n", min(n, len(all)))
	for _, t := range all[:min(n, len(all))] {
		fmt.Fprintf(out, "%8.1fs  %s %s\n", t.seconds, strings.TrimPrefix(t.pkg, "studio/"), t.test)
	}
	return nil
}
