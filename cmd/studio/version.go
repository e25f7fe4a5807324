package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionCmd is `studio version`: the build, Go's version and the zone
// data the scheduler resolves wall-clock times with.
func versionCmd(stdout io.Writer) error {
	fmt.Fprintf(stdout, "studio %s\n%s %s/%s\ntzdata %s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, tzdataVersion())
	return nil
}

// buildVersion is the module version and, when the build recorded it, the
// commit it was built from.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (" + rev + " " + at + dirty + ")"
	}
	return v
}

// zoneSources are the folders Go's time package reads zone data from on
// Unix, in its order, after $ZONEINFO and before its embedded copy.
var zoneSources = []string{"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// tzdataVersion names the zone data time.LoadLocation uses here, found as
// Go finds it: $ZONEINFO, then the system's folders, then the copy
// embedded in the binary (time/tzdata). A folder's version is the one its
// tzdata.zi states; a zip named by $ZONEINFO is named by its hash. A change
// of the answer between runs makes the scheduler resolve the releases to
// come again (scheduler.TzdataChanged).
func tzdataVersion() string {
	if z := os.Getenv("ZONEINFO"); z != "" {
		if fi, err := os.Stat(z); err == nil && fi.IsDir() {
			return folderVersion(z)
		}
		if sum, err := fileHash(z); err == nil {
			return "sha256:" + sum + " (ZONEINFO " + z + ")"
		}
	}
	for _, dir := range zoneSources {
		if _, err := os.Stat(filepath.Join(dir, "UTC")); err == nil {
			return folderVersion(dir)
		}
	}
	return "embedded in " + runtime.Version()
}

// folderVersion is the version a zone folder's tzdata.zi states, else the
// hash of its UTC and Europe/Istanbul files.
func folderVersion(dir string) string {
	if f, err := os.Open(filepath.Join(dir, "tzdata.zi")); err == nil {
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "# version "); ok && v != "" {
			return v + " (" + dir + ")"
		}
	}
	h := sha256.New()
	for _, name := range []string{"UTC", "Europe/Istanbul"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:12] + " (" + dir + ")"
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}
