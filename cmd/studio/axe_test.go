package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser tests check every page they visit with Deque's axe-core, a
// tool the project did not write, against the WCAG 2.0–2.2 A and AA rules:
// newBrowser injects it into every document the tab loads; it runs on the
// whole page when it has loaded, on what each htmx swap put in, on any
// state it has not checked before, and again, awaited, before each
// screenshot (in light and dark). A violation fails the test with the
// rule, the element and axe's summary.

// axePath is axe-core as test/axe/package-lock.json pins it; `make
// deps-test` installs it there with `npm ci`.
var axePath = filepath.Join("..", "..", "test", "axe", "node_modules", "axe-core", "axe.min.js")

// axeTags are the rule sets checked: WCAG 2.0, 2.1 and 2.2, levels A and AA.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"}

// axeRunner runs in every document after axe-core itself. studioAxe()
// runs axe once (runs queue: axe refuses to run twice at once) and resolves
// to a report; after a load and after each htmx swap it runs by itself and
// hands the report to Go through studioAxeReport (chromedp.ExposeFunc).
const axeRunner = `
(function () {
  if (window.studioAxe || !window.axe) return;
  var options = { runOnly: { type: "tag", values: %s }, resultTypes: ["violations"], restoreScroll: true };
  var queue = Promise.resolve(), timer = 0, loaded = false, swapped = [];
  function report(r) {
    return {
      url: location.href,
      lang: document.documentElement.lang || "",
      scheme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
      version: axe.version,
      violations: r.violations.map(function (v) {
        return { id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(function (n) {
          return { target: n.target.map(String).join(" "), summary: n.failureSummary || "" };
        }) };
      })
    };
  }
  // A page state is its markup, viewport and colour scheme: what axe's
  // rules read. The tab's sessionStorage keeps the states checked, across
  // its documents, so that a state seen again (the same page revisited,
  // a swap that changed nothing) is not checked again: its violations were
  // reported the first time.
  function state(scope) {
    var html = scope ? scope.map(function (el) { return el.outerHTML; }).join("\n") : document.documentElement.outerHTML, h = 0;
    for (var i = 0; i < html.length; i++) h = (h * 31 + html.charCodeAt(i)) | 0;
    return ["studioAxe", scope ? "part" : "page", location.href, innerWidth, innerHeight,
      matchMedia("(prefers-color-scheme: dark)").matches, html.length, h].join(" ");
  }
  function seen(key) {
    try { return sessionStorage.getItem(key) !== null; } catch (e) { return false; }
  }
  function remember(key) {
    try { sessionStorage.setItem(key, "1"); } catch (e) {}
  }
  // studioAxe() checks the whole page; studioAxe(elements) only what an
  // htmx swap put there (the page around it was checked when it loaded).
  window.studioAxe = function (scope) {
    clearTimeout(timer);
    swapped = [];
    if (!scope) loaded = false;
    var run = queue.then(function () {
      scope = scope && scope.filter(function (el) { return el.isConnected; });
      if (scope && !scope.length) return { url: location.href, repeat: true, violations: [] };
      var key = state(scope);
      if (seen(key)) return { url: location.href, repeat: true, violations: [] };
      // A menu of the bar the person opened (their own, the site's) lies
      // over what is beneath it until it closes: those targets are not
      // in reach then, which WCAG 2.5.8 does not count; axe's target-size
      // would, so it waits for a state without an open menu.
      var opts = options;
      if (document.querySelector(".bar details[open]")) {
        opts = Object.assign({}, options, { rules: { "target-size": { enabled: false } } });
      }
      return axe.run(scope ? { include: scope } : document, opts).then(function (r) {
        remember(key);
        return report(r);
      }, function (e) {
        return { url: location.href, error: String(e && e.message || e) };
      });
    });
    queue = run;
    return run;
  };
  // After a load the whole page is checked; after swaps, what they swapped
  // in, unless a load is waiting anyway.
  function later(e) {
    clearTimeout(timer);
    if (e.type === "load") loaded = true;
    else if (e.target instanceof Element) swapped.push(e.target);
    timer = setTimeout(function () {
      var scope = loaded ? undefined : swapped;
      loaded = false;
      if (window.studioAxeReport) window.studioAxe(scope).then(window.studioAxeReport);
    }, 100);
  }
  addEventListener("load", later);
  document.addEventListener("htmx:afterSettle", later);
})();
`

var axeSource struct {
	once sync.Once
	src  string
	err  error
}

// axeScript is axe-core and the runner, for every new document of a tab
// (frames included, where the runner does nothing: studioAxe exists once).
func axeScript(t *testing.T) string {
	t.Helper()
	axeSource.once.Do(func() {
		// The version installed is the version pinned.
		var pinned struct {
			DevDependencies map[string]string `json:"devDependencies"`
		}
		var installed struct {
			Version string `json:"version"`
		}
		for _, f := range []struct {
			path string
			v    any
		}{{filepath.Join(filepath.Dir(axePath), "..", "..", "package.json"), &pinned},
			{filepath.Join(filepath.Dir(axePath), "package.json"), &installed}} {
			b, err := os.ReadFile(f.path)
			if err == nil {
				err = json.Unmarshal(b, f.v)
			}
			if err != nil {
				axeSource.err = err
				return
			}
		}
		if want := pinned.DevDependencies["axe-core"]; installed.Version != want {
			axeSource.err = fmt.Errorf("axe-core %s is installed, test/axe/package.json pins %q", installed.Version, want)
			return
		}
		b, err := os.ReadFile(axePath)
		if err != nil {
			axeSource.err = err
			return
		}
		tags, _ := json.Marshal(axeTags)
		axeSource.src = "if (window.top === window) {\n" + string(b) + "\n" + fmt.Sprintf(axeRunner, tags) + "\n}"
	})
	if axeSource.err != nil {
		t.Fatalf("axe-core is not installed (%v): run `make deps-test` (npm ci in test/axe)", axeSource.err)
	}
	return axeSource.src
}

// axeReport is one run of axe on one page.
type axeReport struct {
	URL        string         `json:"url"`
	Lang       string         `json:"lang"`
	Scheme     string         `json:"scheme"`
	Version    string         `json:"version"`
	Error      string         `json:"error"`
	Repeat     bool           `json:"repeat"` // a state already checked in this tab
	Violations []axeViolation `json:"violations"`
}

type axeViolation struct {
	ID     string    `json:"id"`
	Impact string    `json:"impact"`
	Help   string    `json:"help"`
	Nodes  []axeNode `json:"nodes"`
}

type axeNode struct {
	Target  string `json:"target"`
	Summary string `json:"summary"`
}

// axeWatch collects what axe finds in one browser tab, each violation once
// (a rule on an element of a page, in a language and a colour scheme).
type axeWatch struct {
	mu      sync.Mutex
	seen    map[string]bool
	pending []string
	runs    int // the states axe checked
	repeats int // the states seen again, not checked twice
	done    bool
}

var axeWatches sync.Map // *chromedp.Context → *axeWatch

// watchAxe injects axe-core into every document ctx's tab loads from now
// on, and fails t at its end with whatever axe found that no check
// reported yet.
func watchAxe(t *testing.T, ctx context.Context) {
	t.Helper()
	src := axeScript(t)
	w := &axeWatch{seen: map[string]bool{}}
	axeWatches.Store(chromedp.FromContext(ctx), w)
	must(t, chromedp.Do(ctx, chromedp.ExposeFunc("studioAxeReport", func(_ context.Context, r axeReport) (chromedp.Void, error) {
		w.add(r)
		return chromedp.Void{}, nil
	})))
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
	must(t, err)
	t.Cleanup(func() {
		w.flush(t, "while the test ran")
		w.mu.Lock()
		w.done = true
		runs, repeats := w.runs, w.repeats
		w.mu.Unlock()
		t.Logf("axe-core checked %d page states (and skipped %d seen before)", runs, repeats)
	})
}

func (w *axeWatch) add(r axeReport) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if r.Repeat {
		w.repeats++
		return
	}
	w.runs++
	where := r.URL
	if u, err := url.Parse(r.URL); err == nil {
		where = u.RequestURI()
	}
	if r.Error != "" {
		w.pending = append(w.pending, fmt.Sprintf("axe-core failed on %s: %s", where, r.Error))
		return
	}
	for _, v := range r.Violations {
		for _, n := range v.Nodes {
			key := strings.Join([]string{r.Lang, r.Scheme, where, v.ID, n.Target}, "\x00")
			if w.seen[key] {
				continue
			}
			w.seen[key] = true
			w.pending = append(w.pending, fmt.Sprintf("%s (%s) on %s [lang %q, %s]: %s\n      %s\n      %s",
				v.ID, v.Impact, where, r.Lang, r.Scheme, v.Help, n.Target,
				strings.ReplaceAll(strings.TrimSpace(n.Summary), "\n", "\n      ")))
		}
	}
}

// take returns the violations found since the last take, sorted, and
// forgets them.
func (w *axeWatch) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	found := w.pending
	w.pending = nil
	sort.Strings(found)
	return found
}

// flush fails t with the violations found since the last flush.
func (w *axeWatch) flush(t *testing.T, when string) {
	t.Helper()
	if found := w.take(); len(found) > 0 {
		t.Errorf("axe-core (WCAG 2.0–2.2 A/AA) found %d violation(s) %s:\n  - %s", len(found), when, strings.Join(found, "\n  - "))
	}
}

// axeWatchOf is the watch newBrowser put on ctx's tab.
func axeWatchOf(t *testing.T, ctx context.Context) *axeWatch {
	t.Helper()
	v, ok := axeWatches.Load(chromedp.FromContext(ctx))
	if !ok {
		t.Fatal("axe: the browser was not started by newBrowser")
	}
	return v.(*axeWatch)
}

// runAxe runs axe on the page as it is now and waits for its report.
func runAxe(t *testing.T, ctx context.Context) {
	t.Helper()
	w := axeWatchOf(t, ctx)
	r, err := chromedp.Run(ctx, chromedp.Evaluate[axeReport](`window.studioAxe ? window.studioAxe() : {url: location.href, error: "axe-core was not injected into this page"}`, chromedp.EvalAwaitPromise))
	must(t, err)
	w.add(r)
}

// checkAxe runs axe on the page as it is now, waits for it, and fails t
// with what it found (and with what the runs since the last check found).
func checkAxe(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	runAxe(t, ctx)
	axeWatchOf(t, ctx).flush(t, "at "+name)
}

// axNameOf is the accessible name and description Chromium computes for
// the element expr evaluates to, as a screen reader gets them.
func axNameOf(t *testing.T, ctx context.Context, expr string) (name, description string) {
	t.Helper()
	obj, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr})
	must(t, err)
	if obj.Result == nil || obj.Result.ObjectID == "" {
		t.Fatalf("%s is not an element", expr)
	}
	tree, err := chromedp.Call(ctx, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{
		ObjectID: obj.Result.ObjectID, FetchRelatives: new(false)})
	must(t, err)
	if len(tree.Nodes) == 0 {
		t.Fatalf("%s has no accessibility node", expr)
	}
	str := func(v *accessibility.Value) string {
		var s string
		if v != nil && len(v.Value) > 0 {
			must(t, json.Unmarshal(v.Value, &s))
		}
		return s
	}
	return str(tree.Nodes[0].Name), str(tree.Nodes[0].Description)
}
