package studio

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/locales"
	"studio/web/markdown"
	"studio/web/templates"
)

// ContentList shows the site's articles and pages.
func (h *Handler) ContentList(w http.ResponseWriter, r *http.Request) {
	h.renderContent(w, r, http.StatusOK, "")
}

func (h *Handler) renderContent(w http.ResponseWriter, r *http.Request, status int, errMsg string) {
	ctx := r.Context()
	st := stateOf(ctx)
	q := r.URL.Query()
	filter := nodes.NodeFilter{Search: q.Get("q"), Kind: release.NodeKind(q.Get("kind")), Status: content.Status(q.Get("status")),
		Lang: q.Get("lang"), Author: q.Get("author"), Timing: nodes.NodeTiming(q.Get("timing")), Sort: nodes.NodeSort(q.Get("sort"))}
	page, _ := strconv.Atoi(q.Get("page"))
	found, err := h.nodes.ListNodes(ctx, *st.user, st.site.ID, filter, page)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	authors, err := h.people.Authors(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list := contentListOf(ctx, found)
	for _, m := range authors {
		list.Authors = append(list.Authors, templates.Option{Value: m.User.ID, Label: m.User.Name})
	}
	list.CanPublish, list.Error = engine.AbilitiesOfPerson(*st.user).PublishSite, errMsg
	if list.CanPublish { // the count shows on the publish bar only; it reads the whole site
		if list.Pending, err = h.nodes.PendingCount(ctx, *st.user, st.site.ID); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	for _, n := range found.Nodes {
		row := templates.NodeRow{ID: n.ID, Kind: string(n.Kind), Title: n.Body.Title, Status: string(n.ShownStatus()),
			Live: n.Live != nil && n.LiveStatus == content.StatusPublished, Changed: n.Live != nil && n.Live.Hash != n.Hash,
			UpdatedAt: n.UpdatedAt.In(siteLoc(st.site)), Author: n.Author.Name, Lang: cmp.Or(n.Body.Lang, st.site.Lang)}
		if n.Held != nil {
			row.HeldBy, row.HeldState, row.Removes = n.Held.ReleaseID, string(n.Held.State), n.Held.Removes
			if n.Held.At != nil {
				at := n.Held.At.In(siteLoc(st.site))
				row.HeldUntil = &at
			}
		}
		list.Rows = append(list.Rows, row)
	}
	h.render(w, r, status, templates.Content(h.page(r, "content.title", "content"), list))
}

// contentListOf is the list's frame for found: the filters it applied,
// their choices, and the links to the pages around it.
func contentListOf(ctx context.Context, found nodes.NodeList) templates.ContentList {
	p := locales.From(ctx)
	f := found.Filter
	c := templates.ContentList{Search: f.Search, Kind: string(f.Kind), Status: string(f.Status), Lang: f.Lang, Author: f.Author,
		Timing: string(f.Timing), Sort: string(f.Sort),
		Page:  found.Page,
		Sorts: []templates.Option{{Value: "", Label: p.T("content.sort_edited")}, {Value: string(nodes.SortTitle), Label: p.T("content.sort_title")}}}
	for _, k := range []release.NodeKind{release.KindContentEntry, release.KindPage, release.KindAsset} {
		c.Kinds = append(c.Kinds, templates.Option{Value: string(k), Label: p.T("kind." + string(k))})
	}
	for _, s := range []content.Status{content.StatusDraft, content.StatusPublished} {
		c.Statuses = append(c.Statuses, templates.Option{Value: string(s), Label: p.T("status." + string(s))})
	}
	for _, l := range engine.Languages {
		c.Langs = append(c.Langs, templates.Option{Value: l, Label: p.T("lang." + l)})
	}
	for _, t := range nodes.NodeTimings {
		c.Timings = append(c.Timings, templates.Option{Value: string(t), Label: p.T("content.timing_" + string(t))})
	}
	c.Filtered = strings.TrimSpace(c.Search) != "" || c.Kind != "" || c.Status != "" || c.Lang != "" || c.Author != "" || c.Timing != ""
	pageURL := func(n int) string {
		v := url.Values{}
		for key, value := range map[string]string{"q": c.Search, "kind": c.Kind, "status": c.Status, "lang": c.Lang,
			"author": c.Author, "timing": c.Timing, "sort": c.Sort} {
			if value != "" {
				v.Set(key, value)
			}
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return "/studio/content"
		}
		return "/studio/content?" + v.Encode()
	}
	if found.Page > 1 {
		c.PrevURL = pageURL(found.Page - 1)
	}
	if found.More {
		c.NextURL = pageURL(found.Page + 1)
	}
	return c
}

// PublishSite makes the working copy live, except held nodes.
func (h *Handler) PublishSite(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	_, err := h.nodes.Publish(r.Context(), *st.user, st.site.ID)
	if msg, _, status, ok := refusal(r.Context(), err); ok {
		h.renderContent(w, r, status, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "content.published")
	http.Redirect(w, r, to(r, "/studio/content"), http.StatusSeeOther)
}

// NewNode shows an empty editor for an article or a page.
func (h *Handler) NewNode(w http.ResponseWriter, r *http.Request) {
	site := stateOf(r.Context()).site
	h.renderEditor(w, r, http.StatusOK, templates.NodeForm{Kind: editorKind(r.URL.Query().Get("kind")),
		Status: string(content.StatusDraft), Lang: site.Lang})
}

// editorKind is the kind of node the editor shows for the kind a request
// names: a page or a media file as named, an article for anything else (a
// kind the editor has no words for, such as the MCP tools' "entry", would
// show as a raw key and post back a kind nobody can save).
func editorKind(kind string) string {
	if kind != string(release.KindPage) && kind != string(release.KindAsset) {
		return string(release.KindContentEntry)
	}
	return kind
}

// EditNode shows the editor of one node.
func (h *Handler) EditNode(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	n, err := h.nodes.Node(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := h.nodeForm(r.Context(), n)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f.ConfirmDelete = r.URL.Query().Get("confirm") == "delete"
	if f.Gates, err = h.gatesCard(r.Context(), n); err != nil { // the Schedule card (§7.6)
		h.fail(w, r, err)
		return
	}
	if f.Gates != nil {
		f.Gates.ConfirmLift = f.Gates.CanLift && r.URL.Query().Get("confirm") == "lift" // "Lift embargo…" without JavaScript
	}
	h.renderEditor(w, r, http.StatusOK, f)
}

// nodeForm is the editor of n as it is, with what the person may do to
// the release that holds it (offerEdit).
func (h *Handler) nodeForm(ctx context.Context, n releases.NodeDetail) (templates.NodeForm, error) {
	f := nodeFormOf(n, siteLoc(stateOf(ctx).site))
	return f, h.offerEdit(ctx, &f, n)
}

func nodeFormOf(n releases.NodeDetail, loc *time.Location) templates.NodeForm {
	f := templates.NodeForm{ID: n.ID, Author: n.Author.Name, Kind: string(n.Kind), Rev: n.Rev, Title: n.Body.Title, Slug: n.Body.Slug,
		Summary: n.Body.Summary, Body: n.Body.Text, Status: string(n.Body.Status), Lang: n.Body.Lang, Alt: n.Body.Alt,
		Cover: n.Body.Cover}
	if n.Kind == release.KindAsset && len(n.Body.Data) > 0 {
		f.FileURL = fmt.Sprintf("/studio/content/%s/file?rev=%d", n.ID, n.Rev) // a new URL per version
	}
	if n.Live != nil {
		f.LiveRev = n.Live.Rev
	}
	if n.Held != nil {
		f.Held = &templates.HeldView{ReleaseID: n.Held.ReleaseID, Rev: n.Held.Rev} // its abilities: offerEdit
		if n.Held.At != nil {
			at := n.Held.At.In(loc)
			f.Held.At = &at
		}
	}
	return f
}

// mediaChoices lists the site's media files for the cover, by title.
func (h *Handler) mediaChoices(r *http.Request) ([]templates.MediaChoice, error) {
	st := stateOf(r.Context())
	files, err := h.nodes.MediaFiles(r.Context(), *st.user, st.site.ID)
	if err != nil {
		return nil, err
	}
	var out []templates.MediaChoice
	for _, m := range files {
		out = append(out, templates.MediaChoice{ID: m.ID, Title: m.Title, Path: "/media/" + m.Slug})
	}
	return out, nil
}

func (h *Handler) renderEditor(w http.ResponseWriter, r *http.Request, status int, f templates.NodeForm) {
	if f.ID != "" {
		// A saved node's editor always has its Schedule card, also when it
		// comes back with a refusal of the main form.
		st := stateOf(r.Context())
		if n, err := h.nodes.Node(r.Context(), *st.user, st.site.ID, f.ID); err == nil {
			may := h.releases.NodeAbilities(*st.user, n)
			if f.Cover == "" && n.Kind != release.KindAsset {
				if f.Cover, err = h.nodes.CoverOf(r.Context(), *st.user, st.site.ID, n.Body); err != nil {
					h.fail(w, r, err)
					return
				}
			}
			f.CanSchedule, f.CanDelete = may.Schedule, may.Delete
			f.ReadOnly = n.Held == nil && !may.Edit
			if f.Gates == nil {
				if f.Gates, err = h.gatesCard(r.Context(), n); err != nil {
					h.fail(w, r, err)
					return
				}
			}
		}
	}
	for _, s := range content.Statuses {
		f.Statuses = append(f.Statuses, string(s))
	}
	f.Langs = content.Languages
	f.FileLimits = locales.T(r.Context(), "editor.file_limits", "MB", content.MaxAssetBytes>>20, "Megapixels", content.MaxImagePixels/1_000_000)
	if f.Kind != string(release.KindAsset) {
		var err error
		if f.Media, err = h.mediaChoices(r); err != nil {
			h.fail(w, r, err)
			return
		}
		if !f.ReadOnly {
			f.Uploads = "/studio/content/upload"
		}
	}
	if f.Kind == string(release.KindAsset) && f.ID != "" && f.FileURL == "" {
		// Back with a refusal: the preview shows the image as saved.
		if n, err := h.nodes.Node(r.Context(), *stateOf(r.Context()).user, stateOf(r.Context()).site.ID, f.ID); err == nil && len(n.Body.Data) > 0 {
			f.FileURL = fmt.Sprintf("/studio/content/%s/file?rev=%d", n.ID, n.Rev)
		}
	}
	title := "editor.title_edit"
	if f.ID == "" {
		title = "editor.new_" + f.Kind
	}
	f.Latest = editorLatest(status, f)
	h.render(w, r, status, templates.Editor(h.page(r, title, "content"), f))
}

// SaveNode creates a node (no id) or saves a new version of one.
func (h *Handler) SaveNode(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	in := content.Edit{Title: r.PostFormValue("title"), Slug: r.PostFormValue("slug"), Summary: r.PostFormValue("summary"),
		Text: r.PostFormValue("body"), Status: content.Status(r.PostFormValue("status")), Lang: r.PostFormValue("lang"),
		Cover: formCover(r)}
	id := chi.URLParam(r, "id")
	var n content.Node
	var err error
	if id == "" {
		n, err = h.nodes.CreateNode(ctx, *st.user, st.site.ID, release.NodeKind(r.PostFormValue("kind")), content.Body{}.With(in))
	} else {
		n, err = h.nodes.EditNode(ctx, *st.user, st.site.ID, id, formRev(r), in)
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		f := templates.NodeForm{ID: id, Kind: editorKind(r.PostFormValue("kind")), Rev: formRev(r), Title: in.Title, Slug: in.Slug,
			Summary: in.Summary, Body: in.Text, Status: string(in.Status), Lang: in.Lang, Cover: r.PostFormValue("cover"),
			Errors: fields, Error: msg}
		h.renderEditor(w, r, status, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "editor.saved")
	http.Redirect(w, r, to(r, "/studio/content/"+n.ID), http.StatusSeeOther)
}

// formCover is the editor's cover, nil when the form has no cover field
// (the images are then kept as they are).
func formCover(r *http.Request) *string {
	if r.PostFormValue("cover_chosen") == "" {
		return nil
	}
	c := r.PostFormValue("cover")
	return &c
}

// DeleteNode deletes a page or an entry after its confirmation. A held node
// is refused by the engine (scheduled_locked, naming the release and its
// time), and the editor shows why.
func (h *Handler) DeleteNode(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	err := h.nodes.DeleteNode(ctx, *st.user, st.site.ID, id, formRev(r))
	if msg, _, status, ok := refusal(ctx, err); ok {
		n, rerr := h.nodes.Node(ctx, *st.user, st.site.ID, id)
		if rerr != nil {
			h.fail(w, r, rerr)
			return
		}
		f, ferr := h.nodeForm(ctx, n)
		if ferr != nil {
			h.fail(w, r, ferr)
			return
		}
		f.Error = msg
		h.renderEditor(w, r, status, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "editor.deleted")
	http.Redirect(w, r, to(r, "/studio/content"), http.StatusSeeOther)
}

// PreviewText renders an editor's Markdown as the public site will (raw
// HTML dropped, unsafe links left out), for the preview beside the text;
// its images come from Studio (WorkingMedia), so those not live yet show.
func (h *Handler) PreviewText(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, markdown.HTMLWithMedia(r.PostFormValue("body"), to(r, "/studio/media/")))
}
