package studio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/nodes"
	refusals "studio/handlers/refusal"
	"studio/locales"
	"studio/web/templates"
)

// MaxUploadBytes bounds the body of the media editor's upload form: the
// largest file an asset may hold plus room for the form's other fields.
// The route table marks the two upload rows with this limit.
const MaxUploadBytes = content.MaxAssetBytes + 1<<20

// SaveMedia creates a media file (no id) or saves a new version of one from
// the media editor: a multipart form with the file (optional when editing)
// and the editor's fields. The engine reads the file's type from its bytes.
func (h *Handler) SaveMedia(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	form, tooLarge, err := parseUpload(w, r)
	if form != nil {
		defer form.RemoveAll() // net/http removes only what it parsed itself (golang/go#58809)
	}
	if err != nil {
		// The form did not arrive whole: show the editor as saved (or
		// empty), with why.
		f := templates.NodeForm{ID: id, Kind: string(release.KindAsset), Status: string(content.StatusDraft)}
		if id != "" {
			d, nerr := h.nodes.Node(ctx, *st.user, st.site.ID, id)
			if nerr != nil || d.Kind != release.KindAsset {
				h.fail(w, r, engine.ErrNotFound)
				return
			}
			if f, nerr = h.nodeForm(ctx, d); nerr != nil {
				h.fail(w, r, nerr)
				return
			}
		}
		status := http.StatusBadRequest
		if tooLarge {
			status, f.Errors = http.StatusRequestEntityTooLarge, templates.FieldErrors{"data": locales.T(ctx, "error.file_size_invalid")}
		} else {
			f.Error = locales.T(ctx, "error.invalid")
		}
		h.renderEditor(w, r, status, f)
		return
	}
	in := nodes.AssetEdit{Edit: content.Edit{Title: r.PostFormValue("title"), Slug: r.PostFormValue("slug"),
		Status: content.Status(r.PostFormValue("status"))}, Alt: r.PostFormValue("alt")}
	refused := func(status int, fields templates.FieldErrors, msg string) {
		f := templates.NodeForm{ID: id, Kind: string(release.KindAsset), Rev: formRev(r), Title: in.Title, Slug: in.Slug,
			Status: string(in.Status), Alt: in.Alt, Errors: fields, Error: msg}
		h.renderEditor(w, r, status, f)
	}
	if in.Data, in.FileName, err = uploadedFile(form); err != nil {
		if errors.Is(err, errFileTooLarge) {
			refused(http.StatusRequestEntityTooLarge, templates.FieldErrors{"data": locales.T(ctx, "error.file_size_invalid")}, "")
			return
		}
		h.fail(w, r, err)
		return
	}
	var n content.Node
	if id == "" {
		n, err = h.nodes.UploadAsset(ctx, *st.user, st.site.ID, in)
	} else {
		n, err = h.nodes.EditAsset(ctx, *st.user, st.site.ID, id, formRev(r), in)
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		refused(status, fields, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "editor.saved")
	http.Redirect(w, r, to(r, "/studio/content/"+n.ID), http.StatusSeeOther)
}

// parseUpload parses the upload form under MaxUploadBytes. A form the
// request already carries (parsed by an earlier step) is used as it is;
// a form that is not multipart is read as a plain form without a file.
func parseUpload(w http.ResponseWriter, r *http.Request) (form *multipart.Form, tooLarge bool, err error) {
	if r.MultipartForm == nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxUploadBytes)
		err = r.ParseMultipartForm(uploadMemory)
		if errors.Is(err, http.ErrNotMultipart) {
			// A plain form (no file: the fields only) is read as one.
			err = r.ParseForm()
			return &multipart.Form{Value: r.PostForm}, false, err
		}
	}
	var mb *http.MaxBytesError
	return r.MultipartForm, errors.As(err, &mb), err
}

var errFileTooLarge = errors.New("studio: uploaded file too large")

// uploadedFile reads the form's file field, nil when none was chosen.
func uploadedFile(form *multipart.Form) ([]byte, string, error) {
	files := form.File["file"]
	if len(files) == 0 || files[0].Size == 0 {
		return nil, "", nil
	}
	fh := files[0]
	if fh.Size > content.MaxAssetBytes {
		return nil, "", errFileTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "", fmt.Errorf("studio: open upload: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, content.MaxAssetBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("studio: read upload: %w", err)
	}
	if len(data) > content.MaxAssetBytes {
		return nil, "", errFileTooLarge
	}
	return data, fh.Filename, nil
}

// MediaFile serves the image of a media file's working copy to Studio (the
// editor's preview), with its own type, never sniffed, and a sandbox so
// an SVG runs no script on Studio's origin.
func (h *Handler) MediaFile(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	n, err := h.nodes.Node(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err == nil && (n.Kind != release.KindAsset || len(n.Body.Data) == 0) {
		err = engine.ErrNotFound
	}
	h.serveMedia(w, r, n.Body, err)
}

// serveMedia writes a media file's bytes to Studio's own pages, or the
// page for err: its own type, never sniffed, a sandbox so an SVG runs no
// script on Studio's origin, and never cached beyond the person's browser.
func (h *Handler) serveMedia(w http.ResponseWriter, r *http.Request, b content.Body, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", b.Mime)
	hd.Set("Content-Length", strconv.Itoa(len(b.Data)))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	hd.Set("Cache-Control", "private, no-cache")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Data)
	}
}

// UploadImage is the editor's upload of an image into a page or an
// article (editor.js, with progress and drag-and-drop): the file and its
// alt text in a multipart form. It makes a published media file, which goes
// live with what shows it (§6.1: the releases of the text carry it), and
// answers JSON: the file's id, its address and the Markdown that shows it,
// or the refusal as the API words one ({"error": {"code", "message",
// "details": {"field"}}}) in the person's language; what Prepare and Guard
// refuse on the way is JSON too (the route's Body.JSON).
func (h *Handler) UploadImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	w.Header().Set("Cache-Control", "no-store")
	form, tooLarge, err := parseUpload(w, r)
	if form != nil {
		defer form.RemoveAll()
	}
	tooBig := func() {
		writeJSONError(w, http.StatusRequestEntityTooLarge, "file_size_invalid", locales.T(ctx, "error.file_size_invalid"), "data")
	}
	if tooLarge {
		tooBig()
		return
	}
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid", locales.T(ctx, "error.invalid"), "")
		return
	}
	in := nodes.AssetEdit{Edit: content.Edit{Status: content.StatusPublished}, Alt: r.PostFormValue("alt")}
	if in.Data, in.FileName, err = uploadedFile(form); errors.Is(err, errFileTooLarge) {
		tooBig()
		return
	} else if err != nil {
		h.fail(w, r, err) // answers JSON: the route is marked so (Body.JSON)
		return
	}
	in.Title = imageTitle(in.FileName)
	n, err := h.nodes.UploadAsset(ctx, *st.user, st.site.ID, in)
	if e, ok := engine.AsError(err); ok && e.Code != engine.CodeForbidden {
		_, _, status, _ := refusal(ctx, err)
		writeJSONError(w, status, e.Code, refusals.Sentence(locales.From(ctx), siteLoc(st.site), e), e.Field)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	path := "/media/" + n.Body.Slug
	writeJSON(w, http.StatusCreated, map[string]string{"id": n.ID, "title": n.Body.Title, "path": path,
		"markdown": "![" + markdownAlt(n.Body.Alt) + "](" + path + ")"})
}

// imageTitle is a media file's title from its file name: "Boğaz'da
// sonbahar.PNG" → "Boğaz'da sonbahar".
func imageTitle(fileName string) string {
	base := strings.TrimSpace(strings.TrimSuffix(path.Base(fileName), path.Ext(fileName)))
	if base == "" || base == "." || base == "/" {
		return "Image"
	}
	return base
}

// markdownAlt keeps alt text from closing the image's brackets.
func markdownAlt(alt string) string {
	return strings.NewReplacer("[", "(", "]", ")", "\n", " ", "\r", " ").Replace(alt)
}

// writeJSONError answers a refusal as the JSON API does: {"error":
// {"code", "message", "details": {"field"}}}, the field only when the
// refusal names one.
func writeJSONError(w http.ResponseWriter, status int, code, message, field string) {
	body := map[string]any{"code": code, "message": message}
	if field != "" {
		body["details"] = map[string]any{"field": field}
	}
	writeJSON(w, status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
