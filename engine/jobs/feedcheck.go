package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"studio/engine/model/release"
)

// Counts of feed-check (the README's names).
const (
	CountDocumentsChecked = "documents-checked"
	CountFeedProblems     = "feed-problems"
)

const phaseEntries = "entries"

// feedDocuments are the documents the first step of feed-check renders:
// the feeds, and the lists that show entries.
var feedDocuments = []string{"/rss.xml", "/sitemap.xml", "/", "/posts"}

// feedCheck renders what the public site serves at run.Now through the
// real public handlers and checks it (§11.1): the feeds and lists first,
// then each live page and entry's page (JSON-LD, Open Graph, images), a
// page of them per step. Every document is also held to the gate
// self-check: no gated or unpublished node appears anywhere.
func (j *Jobs) feedCheck(ctx context.Context, run Run, c *cursor) (bool, error) {
	c.Counts[CountSteps]++
	if j.renderer() == nil {
		return false, fmt.Errorf("jobs: feed-check has no renderer")
	}
	site, err := j.store.Site(ctx, run.SiteID)
	if err != nil {
		return false, err
	}
	ix := &liveIndex{byID: map[string]IndexNode{}, byPath: map[string]IndexNode{}}
	if site.PublishedSnapshotID != "" {
		if ix, err = j.index(ctx, site.PublishedSnapshotID); err != nil {
			return false, err
		}
	}
	fc := &feedChecker{ix: ix, now: run.Now, c: c}
	if c.Phase != phaseEntries {
		for _, p := range feedDocuments {
			if err := j.checkDocument(ctx, run, fc, p); err != nil {
				return false, err
			}
		}
		c.Phase, c.After = phaseEntries, ""
		if site.PublishedSnapshotID == "" {
			return true, j.record(ctx, run, c, fc.found, true)
		}
		return false, j.record(ctx, run, c, fc.found, false)
	}
	page, err := j.store.LivePage(ctx, site.PublishedSnapshotID, []release.NodeKind{release.KindContentEntry, release.KindPage}, c.After, MaxNodesPerStep)
	if err != nil {
		return false, err
	}
	for _, n := range page {
		if err := j.checkNodePage(ctx, run, fc, n); err != nil {
			return false, err
		}
	}
	done := len(page) < MaxNodesPerStep
	if !done {
		c.After = page[len(page)-1].ID
	}
	return done, j.record(ctx, run, c, fc.found, done)
}

// feedChecker gathers one step's findings.
type feedChecker struct {
	ix    *liveIndex
	now   time.Time
	c     *cursor
	found []Finding
}

func (fc *feedChecker) add(f Finding) {
	fc.c.Counts[f.Code]++
	fc.c.Counts[CountFeedProblems]++
	fc.found = append(fc.found, f)
}

// render asks the renderer for a path; a transport error fails the step
// (the run is retried), a status is the document's answer.
func (j *Jobs) renderPath(ctx context.Context, run Run, p string) (int, []byte, error) {
	status, body, err := j.renderer().Render(ctx, run.SiteID, p, run.Now)
	if err != nil {
		return 0, nil, fmt.Errorf("jobs: render %s: %w", p, err)
	}
	return status, body, nil
}

type rssDoc struct {
	Items []struct {
		Title   string `xml:"title"`
		Link    string `xml:"link"`
		PubDate string `xml:"pubDate"`
	} `xml:"channel>item"`
}

type sitemapDoc struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

// checkDocument renders one of feedDocuments and checks it.
func (j *Jobs) checkDocument(ctx context.Context, run Run, fc *feedChecker, p string) error {
	status, body, err := j.renderPath(ctx, run, p)
	if err != nil {
		return err
	}
	fc.c.Counts[CountDocumentsChecked]++
	field := strings.TrimPrefix(p, "/")
	if field == "" {
		field = "home"
	}
	if status != http.StatusOK {
		fc.add(Finding{Code: CodeFeedUnreachable, Field: field, Target: p, Detail: fmt.Sprint(status)})
		return nil
	}
	switch p {
	case "/rss.xml":
		var doc rssDoc
		if err := xml.Unmarshal(body, &doc); err != nil {
			fc.add(Finding{Code: CodeFeedInvalid, Field: field, Target: p})
			return nil
		}
		for _, it := range doc.Items {
			target := pathOf(it.Link)
			if strings.TrimSpace(it.Title) == "" {
				fc.add(Finding{Code: CodeFeedItemIncomplete, Field: field, Target: target, Detail: "title"})
			}
			if t, err := time.Parse(time.RFC1123Z, it.PubDate); err == nil && t.After(fc.now) {
				fc.add(Finding{Code: CodeFeedFutureDate, Field: field, Target: target, Detail: t.UTC().Format(time.RFC3339)})
			}
			fc.gated(field, target)
		}
	case "/sitemap.xml":
		var doc sitemapDoc
		if err := xml.Unmarshal(body, &doc); err != nil {
			fc.add(Finding{Code: CodeFeedInvalid, Field: field, Target: p})
			return nil
		}
		for _, u := range doc.URLs {
			target := pathOf(u.Loc)
			if t, err := time.Parse(time.RFC3339, u.LastMod); err == nil && t.After(fc.now) {
				fc.add(Finding{Code: CodeFeedFutureDate, Field: field, Target: target, Detail: t.UTC().Format(time.RFC3339)})
			}
			fc.gated(field, target)
		}
	default:
		fc.links(field, "", body)
	}
	return nil
}

// checkNodePage renders a live page or entry's own page: a node not shown
// now must answer 404 (the gate self-check); a shown one must carry a
// title, a date that is not in the future, an image, and only live assets
// and shown nodes.
func (j *Jobs) checkNodePage(ctx context.Context, run Run, fc *feedChecker, n LiveNode) error {
	p := pathFor(n)
	if p == "" {
		return nil
	}
	status, body, err := j.renderPath(ctx, run, p)
	if err != nil {
		return err
	}
	fc.c.Counts[CountDocumentsChecked]++
	shown := lands(indexNode(n), fc.now) == landsOK
	if fi, ok := fc.ix.byPath[p]; ok && fi.ID != n.ID {
		shown = false // another node holds the address: this one is never served
	}
	base := Finding{NodeID: n.ID, NodeKind: n.Kind, Target: p}
	if !shown {
		if status == http.StatusOK {
			f := base
			f.Code, f.Field, f.Detail = CodeFeedGatedNode, "page", lands(indexNode(n), fc.now)
			fc.add(f)
		}
		return nil
	}
	if status != http.StatusOK {
		f := base
		f.Code, f.Field, f.Detail = CodeFeedUnreachable, "page", fmt.Sprint(status)
		fc.add(f)
		return nil
	}
	ld, ok := jsonLD(body)
	if !ok {
		f := base
		f.Code, f.Field = CodeFeedInvalid, "jsonld"
		fc.add(f)
	} else {
		title, _ := ld["headline"].(string)
		if n.Kind == release.KindPage {
			title, _ = ld["name"].(string)
		}
		if strings.TrimSpace(title) == "" {
			f := base
			f.Code, f.Field, f.Detail = CodeFeedItemIncomplete, "jsonld", "title"
			fc.add(f)
		}
		if s, _ := ld["datePublished"].(string); s != "" {
			if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(fc.now) {
				f := base
				f.Code, f.Field, f.Detail = CodeFeedFutureDate, "jsonld", t.UTC().Format(time.RFC3339)
				fc.add(f)
			}
		}
		if _, has := ld["image"]; !has && n.Kind == release.KindContentEntry {
			f := base
			f.Code, f.Field, f.Detail = CodeFeedItemIncomplete, "jsonld", "image"
			fc.add(f)
		}
	}
	if meta(body, "og:title") == "" {
		f := base
		f.Code, f.Field, f.Detail = CodeFeedItemIncomplete, "og", "title"
		fc.add(f)
	}
	fc.links("page", n.ID, body)
	return nil
}

// pathFor is a page or entry's public path.
func pathFor(n LiveNode) string {
	switch n.Kind {
	case release.KindContentEntry:
		return "/posts/" + n.Body.Slug
	case release.KindPage:
		return "/" + n.Body.Slug
	}
	return ""
}

// gated reports a path of a feed that names a node not shown now.
func (fc *feedChecker) gated(field, target string) {
	where, n := fc.ix.resolvePath(target, fc.now)
	if where == landsOK || where == landsOutside {
		return
	}
	fc.add(Finding{Code: CodeFeedGatedNode, NodeID: n.ID, NodeKind: n.Kind, Field: field, Target: target, Detail: where})
}

var attrURL = regexp.MustCompile(`(?i)\s(?:href|src|content)\s*=\s*"([^"]*)"`)

// authorText is the body an author wrote, as the public site renders it
// (web/templates' SiteArticle): Markdown renders no <div> of its own, so
// the first </div> after it closes it.
var authorText = regexp.MustCompile(`(?s)<div class="body" data-author-text>.*?</div>`)

// links checks every URL of a rendered HTML document that Studio wrote: a
// media file must be a live asset shown now, and a page or entry must be
// shown now. The links an author wrote in a body are the broken-links
// job's to judge, from the text (a link to another site is not the site's).
func (fc *feedChecker) links(field, nodeID string, body []byte) {
	seenPath := map[string]bool{}
	for _, m := range attrURL.FindAllSubmatch(authorText.ReplaceAll(body, nil), -1) {
		raw := html.UnescapeString(string(m[1]))
		target := pathOf(raw)
		if target == "" || seenPath[target] {
			continue
		}
		seenPath[target] = true
		where, _ := fc.ix.resolvePath(target, fc.now)
		if where == landsOK || where == landsOutside {
			continue
		}
		f := Finding{NodeID: nodeID, Field: field, Target: target, Detail: where}
		if nodeID != "" {
			f.NodeKind = fc.ix.byID[nodeID].Kind
		}
		if strings.HasPrefix(target, "/media/") {
			f.Code = CodeFeedAssetNotLive
		} else {
			f.Code = CodeFeedGatedNode
		}
		fc.add(f)
	}
}

// pathOf is the site path of a URL the public site wrote (absolute, with
// its origin, or a path); "" for anything else.
func pathOf(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "//") {
		return NormalizePath(raw)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path == "" {
		return ""
	}
	return NormalizePath(u.Path)
}

var ldScript = regexp.MustCompile(`(?s)<script[^>]*type="application/ld\+json"[^>]*>(.*?)</script>`)

// jsonLD decodes a page's JSON-LD.
func jsonLD(body []byte) (map[string]any, bool) {
	m := ldScript.FindSubmatch(body)
	if m == nil {
		return nil, false
	}
	var ld map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(m[1]), &ld); err != nil {
		return nil, false
	}
	return ld, true
}

// meta returns the content of a page's <meta property=name>.
func meta(body []byte, name string) string {
	re := regexp.MustCompile(`<meta\s+property="` + regexp.QuoteMeta(name) + `"\s+content="([^"]*)"`)
	if m := re.FindSubmatch(body); m != nil {
		return html.UnescapeString(string(m[1]))
	}
	return ""
}
