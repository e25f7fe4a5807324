package site

import (
	"encoding/xml"
	"net/http"
	"strings"
	"time"
)

// feedSize is how many entries rss.xml carries, newest first.
const feedSize = 20

type rss struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	Atom    string     `xml:"xmlns:atom,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title       string    `xml:"title"`
	Link        string    `xml:"link"`
	Description string    `xml:"description"`
	Language    string    `xml:"language"`
	Self        atomLink  `xml:"atom:link"`
	Items       []rssItem `xml:"item"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
}

type rssItem struct {
	Title       string  `xml:"title"`
	Link        string  `xml:"link"`
	GUID        rssGUID `xml:"guid"`
	PubDate     string  `xml:"pubDate,omitempty"`
	Description string  `xml:"description,omitempty"`
}

type rssGUID struct {
	Value       string `xml:",chardata"`
	IsPermaLink string `xml:"isPermaLink,attr"`
}

// RSS serves /rss.xml: RSS 2.0 of the newest visible entries, each dated
// by its publishedAt (for an embargoed entry, its from: §7.5).
func (h *Handler) RSS(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "/rss.xml", func(q *request) (*page, bool, error) {
		f := q.frame()
		feed := rss{Version: "2.0", Atom: "http://www.w3.org/2005/Atom", Channel: rssChannel{
			Title: f.SiteName, Link: q.origin + "/", Language: f.Lang,
			Description: t(f.Lang, "site.feed_description", "Site", f.SiteName),
			Self:        atomLink{Href: q.origin + "/rss.xml", Rel: "self", Type: "application/rss+xml"},
		}}
		for _, it := range q.view.entries[:min(feedSize, len(q.view.entries))] {
			e := it.entry
			item := rssItem{Title: e.Title, Link: q.origin + e.Path, GUID: rssGUID{q.origin + e.Path, "true"},
				Description: e.Summary}
			if e.PublishedAt != nil {
				item.PubDate = e.PublishedAt.UTC().Format(time.RFC1123Z)
			}
			feed.Channel.Items = append(feed.Channel.Items, item)
		}
		return xmlPage("application/rss+xml; charset=utf-8", feed)
	})
}

type urlset struct {
	XMLName xml.Name     `xml:"urlset"`
	NS      string       `xml:"xmlns,attr"`
	URLs    []sitemapURL `xml:"url"`
}

type sitemapURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

// Sitemap serves /sitemap.xml: the home page, the list of articles and
// every visible page and entry.
func (h *Handler) Sitemap(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "/sitemap.xml", func(q *request) (*page, bool, error) {
		set := urlset{NS: "http://www.sitemaps.org/schemas/sitemap/0.9",
			URLs: []sitemapURL{{Loc: q.origin + "/"}, {Loc: q.origin + "/posts"}}}
		for _, p := range q.view.frame.Pages {
			set.URLs = append(set.URLs, sitemapURL{Loc: q.origin + p.Path})
		}
		for _, it := range q.view.entries {
			u := sitemapURL{Loc: q.origin + it.entry.Path}
			if p := it.entry.PublishedAt; p != nil {
				u.LastMod = p.UTC().Format(time.RFC3339)
			}
			set.URLs = append(set.URLs, u)
		}
		return xmlPage("application/xml; charset=utf-8", set)
	})
}

// Robots serves /robots.txt: the public site may be crawled, Studio, the
// API and previews may not, and the sitemap is named.
func (h *Handler) Robots(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "/robots.txt", func(q *request) (*page, bool, error) {
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /studio/\nDisallow: /api/\nDisallow: /mcp\nDisallow: /preview/\n\n")
		b.WriteString("Sitemap: " + q.origin + "/sitemap.xml\n")
		return &page{contentType: "text/plain; charset=utf-8", body: []byte(b.String())}, true, nil
	})
}

func xmlPage(contentType string, v any) (*page, bool, error) {
	body, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, false, err
	}
	return &page{contentType: contentType, body: append([]byte(xml.Header), append(body, '\n')...)}, true, nil
}
