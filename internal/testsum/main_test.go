package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run with a passing test, a failing subtest and a package's lines:
// filter prints what go test without -v prints, and the times of the
// top-level tests.
func TestFilter(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"studio/a","Test":"TestQuiet"}`,
		`{"Action":"output","Package":"studio/a","Test":"TestQuiet","Output":"=== RUN   TestQuiet\n"}`,
		`{"Action":"output","Package":"studio/a","Test":"TestQuiet","Output":"    a_test.go:9: a log line of a passing test\n"}`,
		`{"Action":"pass","Package":"studio/a","Test":"TestQuiet","Elapsed":1.5}`,
		`{"Action":"output","Package":"studio/a","Test":"TestLoud/Sub","Output":"    a_test.go:20: want 2, got 3\n"}`,
		`{"Action":"fail","Package":"studio/a","Test":"TestLoud/Sub","Elapsed":0.2}`,
		`{"Action":"fail","Package":"studio/a","Test":"TestLoud","Elapsed":7.25}`,
		`{"Action":"output","Package":"studio/a","Output":"FAIL\tstudio/a\t9.1s\n"}`,
		`{"Action":"fail","Package":"studio/a","Elapsed":9.1,"Time":"2026-12-07T08:00:09.1Z"}`,
		`{"Action":"output","Package":"studio/b","Output":"PASS\n"}`,
		`{"Action":"output","Package":"studio/b","Output":"ok  \tstudio/b\t0.3s\n"}`,
		`{"Action":"pass","Package":"studio/b","Elapsed":0.3,"Time":"2026-12-07T08:00:10Z"}`,
		`go: downloading example.com/x v1.0.0`,
	}, "\n")
	var out strings.Builder
	failed, times, pkgs := filter(strings.NewReader(in), &out)
	got := out.String()
	for _, want := range []string{"want 2, got 3", "FAIL\tstudio/a\t9.1s", "ok  \tstudio/b", "go: downloading"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "a log line of a passing test") || strings.Contains(got, "=== RUN") || strings.Contains(got, "PASS\n") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
	if !failed {
		t.Error("a failed test was not reported as a failure")
	}
	if len(times) != 2 || times[0] != (timing{"studio/a", "TestQuiet", 1.5}) || times[1] != (timing{"studio/a", "TestLoud", 7.25}) {
		t.Errorf("times %+v", times)
	}
	if len(pkgs) != 2 || pkgs[0].pkg != "studio/a" || pkgs[0].seconds != 9.1 || pkgs[1].pkg != "studio/b" ||
		!pkgs[1].ended.Equal(time.Date(2026, 12, 7, 8, 0, 10, 0, time.UTC)) {
		t.Errorf("packages %+v", pkgs)
	}
	if failed, _, _ := filter(strings.NewReader(`{"Action":"pass","Package":"studio/b","Test":"TestX","Elapsed":1}`), &out); failed {
		t.Error("a passing run reported as failed")
	}
}

// printSlowest merges the runs' files and lists the slowest first.
func TestPrintSlowest(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "race.tsv"), filepath.Join(dir, "browser.tsv")
	os.WriteFile(one, []byte("studio/a\tTestA\t3.00\nstudio/a\tTestB\t12.50\n"), 0o644)
	os.WriteFile(two, []byte("studio/cmd/studio\tTestInTheBrowser\t40.00\n"), 0o644)
	var out strings.Builder
	if err := printSlowest(&out, 2, []string{one, two}); err != nil {
		t.Fatal(err)
	}
	want := "The 2 slowest tests:\n    40.0s  cmd/studio TestInTheBrowser\n    12.5s  a TestB\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A package that times out: the panic is the output of the test that was
// running, which never ends; filter prints it when the package fails.
func TestFilterTimeout(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"studio/a","Test":"TestSlow"}`,
		`{"Action":"output","Package":"studio/a","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}`,
		`{"Action":"output","Package":"studio/a","Test":"TestSlow","Output":"panic: test timed out after 18m0s\n"}`,
		`{"Action":"output","Package":"studio/a","Output":"FAIL\tstudio/a\t1080.1s\n"}`,
		`{"Action":"fail","Package":"studio/a","Elapsed":1080.1}`,
	}, "\n")
	var out strings.Builder
	failed, _, _ := filter(strings.NewReader(in), &out)
	if got := out.String(); !failed || !strings.Contains(got, "still running when studio/a failed: TestSlow") || !strings.Contains(got, "panic: test timed out") {
		t.Errorf("failed %v, output:\n%s", failed, got)
	}
}
