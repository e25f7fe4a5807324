// Package static embeds Studio's CSS, JavaScript and htmx, and names each
// file with its content hash so it can be cached for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed *.css *.js
var files embed.FS

// versions maps a file name to a short hash of its content.
var versions = func() map[string]string {
	m := map[string]string{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		data, _ := files.ReadFile(e.Name())
		sum := sha256.Sum256(data)
		m[e.Name()] = hex.EncodeToString(sum[:6])
	}
	return m
}()

// Path is the URL of an embedded file, with its content hash as the version.
func Path(name string) string {
	return "/static/" + name + "?v=" + versions[name]
}

// Handler serves the embedded files under /static/. A request that names
// the current version may be cached for a year; any other for a minute.
func Handler() http.Handler {
	fsrv := http.StripPrefix("/static/", http.FileServerFS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		v, ok := versions[name]
		switch {
		case !ok:
			http.NotFound(w, r)
			return
		case r.URL.Query().Get("v") == v:
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		default:
			w.Header().Set("Cache-Control", "public, max-age=60")
		}
		fsrv.ServeHTTP(w, r)
	})
}
