package studio

import (
	"net/http"

	"studio/engine"

	"studio/engine/setup"
	"studio/locales"
	"studio/web/templates"
)

// Home is a site's Studio: its Schedules page, under the site's prefix, so
// every page after it keeps the site in its URL.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	site := stateOf(r.Context()).site.ID
	http.Redirect(w, r, templates.SitePrefix+site+"/schedules", http.StatusSeeOther)
}

// NewSiteForm is the New site page (issue 15), for an Owner.
func (h *Handler) NewSiteForm(w http.ResponseWriter, r *http.Request) {
	if !h.mayAddSite(w, r) {
		return
	}
	f := templates.SetupForm{SiteLang: locales.From(r.Context()).Lang}
	if loc := viewerZone(r); loc != nil {
		f.TimeZone = loc.String()
	}
	h.renderNewSite(w, r, http.StatusOK, f)
}

// CreateSite makes the site, with the person as its Owner, and opens its
// Studio. Every bad field is refused together and nothing is written.
func (h *Handler) CreateSite(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	in := setup.SiteInput{Name: r.PostFormValue("siteName"), PublicURL: r.PostFormValue("publicUrl"),
		TimeZone: r.PostFormValue("timeZone"), Lang: r.PostFormValue("siteLang")}
	site, err := h.setup.CreateSite(ctx, *stateOf(ctx).user, in)
	if e, ok := engine.AsError(err); ok && e.Code == engine.CodeForbidden {
		h.fail(w, r, err)
		return
	}
	if fields := fieldRefusals(ctx, err); fields != nil {
		f := templates.SetupForm{SiteName: in.Name, PublicURL: in.PublicURL, TimeZone: in.TimeZone, SiteLang: in.Lang, Errors: fields}
		h.renderNewSite(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "sites.created")
	http.Redirect(w, r, templates.SitePrefix+site.ID+"/schedules", http.StatusSeeOther)
}

// mayAddSite answers 403 to someone who may not make sites, so the page
// offers nothing the use case would refuse.
func (h *Handler) mayAddSite(w http.ResponseWriter, r *http.Request) bool {
	if !engine.MayAddSite(*stateOf(r.Context()).user) {
		h.problem(w, r, http.StatusForbidden, "error.forbidden")
		return false
	}
	return true
}

func (h *Handler) renderNewSite(w http.ResponseWriter, r *http.Request, status int, f templates.SetupForm) {
	f.Langs, f.Zones = engine.Languages, zoneOptions(r.Context(), h.eng.Now())
	h.render(w, r, status, templates.NewSite(h.page(r, "sites.new_title", ""), f))
}
