package content_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"testing"

	"studio/engine/content"
)

// secret is what a camera's EXIF and an editor's XMP would give away: a
// GPS position, written where no stripping may leave it.
const secret = "GPS-41.0082N-28.9784E"

// gpsTIFF is an EXIF TIFF structure (little-endian) with a camera make in
// IFD0, the orientation when not 0, and a GPS IFD holding a latitude and a
// processing method carrying secret.
func gpsTIFF(orientation int) []byte {
	le := binary.LittleEndian
	type entry struct {
		tag, typ uint16
		count    uint32
		value    []byte // inline when at most 4 bytes, else at an offset
	}
	ifd0 := []entry{{0x010F, 2, 10, []byte("SecretCam\x00")}}
	if orientation > 0 {
		ifd0 = append(ifd0, entry{0x0112, 3, 1, le.AppendUint16(nil, uint16(orientation))})
	}
	ifd0 = append(ifd0, entry{0x8825, 4, 1, nil}) // the GPS IFD's offset, filled below
	lat := le.AppendUint32(le.AppendUint32(nil, 41), 1)
	lat = le.AppendUint32(le.AppendUint32(lat, 0), 1)
	lat = le.AppendUint32(le.AppendUint32(lat, 82), 10000)
	gps := []entry{{0x0001, 2, 2, []byte("N\x00")}, {0x0002, 5, 3, lat},
		{0x001B, 7, uint32(8 + len(secret)), append([]byte("ASCII\x00\x00\x00"), secret...)}}
	size := func(es []entry) int { return 2 + 12*len(es) + 4 }
	gpsAt := 8 + size(ifd0)
	dataAt := gpsAt + size(gps)
	var data []byte
	write := func(b []byte, es []entry) []byte {
		b = le.AppendUint16(b, uint16(len(es)))
		for _, e := range es {
			b = le.AppendUint16(le.AppendUint16(b, e.tag), e.typ)
			b = le.AppendUint32(b, e.count)
			switch {
			case e.tag == 0x8825:
				b = le.AppendUint32(b, uint32(gpsAt))
			case len(e.value) <= 4:
				b = append(b, append(e.value, make([]byte, 4-len(e.value))...)...)
			default:
				b = le.AppendUint32(b, uint32(dataAt+len(data)))
				data = append(data, e.value...)
			}
		}
		return le.AppendUint32(b, 0)
	}
	b := []byte("II*\x00\x08\x00\x00\x00")
	b = write(b, ifd0)
	b = write(b, gps)
	return append(b, data...)
}

func picture() *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, 16, 8))
	for y := range 8 {
		for x := range 16 {
			m.Set(x, y, color.RGBA{uint8(16 * x), uint8(32 * y), 128, 255})
		}
	}
	return m
}

func segment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker}
	s = binary.BigEndian.AppendUint16(s, uint16(2+len(payload)))
	return append(s, payload...)
}

var xmp = []byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta><exif:GPSLatitude>" + secret + "</exif:GPSLatitude></x:xmpmeta>")

// cameraJPEG is a JPEG as a phone writes one: EXIF with GPS (and the
// orientation when not 0), XMP, an ICC profile, an MPF index, a comment,
// and a trailer after the end of image.
func cameraJPEG(t *testing.T, orientation int) (data, plain []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, picture(), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	plain = buf.Bytes()
	rest := plain[2:]
	if rest[0] == 0xFF && rest[1] == 0xE0 { // Go writes no JFIF, but keep one first if it did
		n := int(binary.BigEndian.Uint16(rest[2:]))
		rest = rest[2+n:]
	}
	data = []byte{0xFF, 0xD8}
	data = append(data, segment(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))...)
	data = append(data, segment(0xE1, append([]byte("Exif\x00\x00"), gpsTIFF(orientation)...))...)
	data = append(data, segment(0xE1, xmp)...)
	data = append(data, segment(0xE2, []byte("ICC_PROFILE\x00\x01\x01fake-profile"))...)
	data = append(data, segment(0xE2, append([]byte("MPF\x00"), secret...))...)
	data = append(data, segment(0xED, append([]byte("Photoshop 3.0\x00"), secret...))...)
	data = append(data, segment(0xFE, []byte("Taken at "+secret))...)
	data = append(data, rest...)
	data = append(data, []byte("TRAILER "+secret)...)
	return data, plain
}

func samePixels(t *testing.T, a, b image.Image) {
	t.Helper()
	if a.Bounds() != b.Bounds() {
		t.Fatalf("bounds %v, want %v", a.Bounds(), b.Bounds())
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				t.Fatalf("pixel %d,%d differs: the image was re-encoded", x, y)
			}
		}
	}
}

func noSecret(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, leak := range []string{secret, "SecretCam", "Exif\x00\x00", "http://ns.adobe.com/xap", "Photoshop", "MPF\x00", "TRAILER"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("%s still holds %q", what, leak)
		}
	}
}

// TestStripJPEG: EXIF with GPS, XMP, IPTC, MPF, the comment and the
// trailer go; JFIF and the ICC profile stay; the scan is the same bytes
// (the pixels decode the same). An orientation other than 1 stays, alone,
// in a 26-byte EXIF.
func TestStripJPEG(t *testing.T) {
	data, plain := cameraJPEG(t, 0)
	clean, err := content.StripImageMetadata(data, "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the JPEG", clean)
	for _, kept := range []string{"JFIF\x00", "ICC_PROFILE\x00\x01\x01fake-profile"} {
		if !bytes.Contains(clean, []byte(kept)) {
			t.Errorf("the JPEG lost %q", kept)
		}
	}
	if !bytes.HasSuffix(clean, []byte{0xFF, 0xD9}) {
		t.Error("the JPEG does not end at its end of image")
	}
	a, err := jpeg.Decode(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	b, err := jpeg.Decode(bytes.NewReader(clean))
	if err != nil {
		t.Fatalf("the cleaned JPEG does not decode: %v", err)
	}
	samePixels(t, a, b)
	if again, _ := content.StripImageMetadata(clean, "image/jpeg"); !bytes.Equal(again, clean) {
		t.Error("stripping twice changed the file again")
	}

	rotated, _ := cameraJPEG(t, 6)
	clean, err = content.StripImageMetadata(rotated, "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	want := segment(0xE1, append([]byte("Exif\x00\x00"), "II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00"...))
	if !bytes.Contains(clean, want) || bytes.Count(clean, []byte("Exif")) != 1 {
		t.Errorf("orientation 6: want only % x as EXIF", want)
	}
	for _, leak := range []string{secret, "SecretCam", "http://ns.adobe.com/xap"} {
		if bytes.Contains(clean, []byte(leak)) {
			t.Errorf("orientation 6: still holds %q", leak)
		}
	}
	if _, err := jpeg.Decode(bytes.NewReader(clean)); err != nil {
		t.Fatalf("the rotated JPEG does not decode: %v", err)
	}
}

func pngChunk(typ string, payload []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	b = append(append(b, typ...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// TestStripPNG: eXIf, tEXt, iTXt, zTXt, tIME and a private chunk go;
// the picture's chunks and those that change how it looks stay whole.
func TestStripPNG(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, picture()); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	ihdrEnd := 8 + 12 + 13
	data := append([]byte{}, plain[:ihdrEnd]...)
	data = append(data, pngChunk("gAMA", []byte{0, 0, 0xB1, 0x8F})...)
	data = append(data, pngChunk("eXIf", gpsTIFF(0))...)
	data = append(data, pngChunk("tEXt", []byte("Comment\x00"+secret))...)
	data = append(data, pngChunk("iTXt", append([]byte("XML:com.adobe.xmp\x00\x00\x00\x00\x00"), xmp...))...)
	data = append(data, pngChunk("zTXt", []byte("Location\x00\x00"+secret))...)
	data = append(data, pngChunk("tIME", []byte{0x07, 0xEA, 11, 2, 9, 0, 0})...)
	data = append(data, pngChunk("prVt", []byte(secret))...)
	data = append(data, plain[ihdrEnd:]...)
	data = append(data, "TRAILER"...)
	clean, err := content.StripImageMetadata(data, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the PNG", clean)
	for _, gone := range []string{"eXIf", "tEXt", "iTXt", "zTXt", "tIME", "prVt"} {
		if bytes.Contains(clean, []byte(gone)) {
			t.Errorf("the PNG keeps its %s chunk", gone)
		}
	}
	if !bytes.Contains(clean, pngChunk("gAMA", []byte{0, 0, 0xB1, 0x8F})) || !bytes.Equal(clean, append(plain[:ihdrEnd:ihdrEnd],
		append(pngChunk("gAMA", []byte{0, 0, 0xB1, 0x8F}), plain[ihdrEnd:]...)...)) {
		t.Error("the PNG's own chunks did not stay whole and in order")
	}
	a, _ := png.Decode(bytes.NewReader(plain))
	b, err := png.Decode(bytes.NewReader(clean))
	if err != nil {
		t.Fatalf("the cleaned PNG does not decode: %v", err)
	}
	samePixels(t, a, b)

	rotated := append(append(append([]byte{}, plain[:ihdrEnd]...), pngChunk("eXIf", gpsTIFF(8))...), plain[ihdrEnd:]...)
	clean, err = content.StripImageMetadata(rotated, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	want := pngChunk("eXIf", []byte("II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00"))
	if !bytes.Contains(clean, want) || bytes.Contains(clean, []byte(secret)) {
		t.Error("orientation 8: want only the orientation in eXIf")
	}
}

// TestStripGIF: comments and XMP's application extension go; the loop
// count stays; every frame decodes the same.
func TestStripGIF(t *testing.T) {
	pal := color.Palette{color.Black, color.White, color.RGBA{200, 0, 0, 255}}
	frame := func(c uint8) *image.Paletted {
		m := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
		for i := range m.Pix {
			m.Pix[i] = (c + uint8(i)) % 3
		}
		return m
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame(0), frame(1)}, Delay: []int{10, 10}, LoopCount: 0}); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	// After the header, the screen and its global colour table, if any.
	at := 13
	if p := plain[10]; p&0x80 != 0 {
		at += 3 << ((p & 7) + 1)
	}
	comment := append([]byte{0x21, 0xFE, byte(len(secret))}, append([]byte(secret), 0)...)
	app := append([]byte{0x21, 0xFF, 11}, "XMP DataXMP"...)
	app = append(append(append(app, byte(len(secret))), secret...), 0)
	data := append(append(append(append([]byte{}, plain[:at]...), comment...), app...), plain[at:]...)
	data = append(data, "TRAILER"...)
	clean, err := content.StripImageMetadata(data, "image/gif")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the GIF", clean)
	if !bytes.Contains(clean, []byte("NETSCAPE2.0")) || !bytes.Equal(clean, plain) {
		t.Error("the GIF is not its own blocks without the metadata")
	}
	g, err := gif.DecodeAll(bytes.NewReader(clean))
	if err != nil || len(g.Image) != 2 {
		t.Fatalf("the cleaned GIF: %v, %d frames", err, len(g.Image))
	}
}

// webpWith is an extended WebP: VP8X (with the EXIF and XMP flags), a
// lossless 16×8 header, then EXIF and XMP chunks.
func webpWith(exif []byte) []byte {
	chunk := func(fourcc string, p []byte) []byte {
		b := binary.LittleEndian.AppendUint32([]byte(fourcc), uint32(len(p)))
		b = append(b, p...)
		if len(p)%2 == 1 {
			b = append(b, 0)
		}
		return b
	}
	vp8x := []byte{0x08 | 0x04 | 0x10, 0, 0, 0, 15, 0, 0, 7, 0, 0} // 16 × 8
	bits := uint32(15) | uint32(7)<<14
	vp8l := append([]byte{0x2F}, binary.LittleEndian.AppendUint32(nil, bits)...)
	body := append(chunk("VP8X", vp8x), chunk("VP8L", append(vp8l, 0, 0, 0))...)
	body = append(body, chunk("EXIF", exif)...)
	body = append(body, chunk("XMP ", xmp)...)
	out := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(4+len(body)))
	return append(append(out, "WEBP"...), body...)
}

// TestStripWebP: EXIF and XMP chunks go and VP8X's flags say so, the RIFF
// size is what is left; an orientation stays alone in a new EXIF chunk.
func TestStripWebP(t *testing.T) {
	clean, err := content.StripImageMetadata(webpWith(gpsTIFF(0)), "image/webp")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the WebP", clean)
	if bytes.Contains(clean, []byte("EXIF")) || bytes.Contains(clean, []byte("XMP ")) {
		t.Error("the WebP keeps a metadata chunk")
	}
	if flags := clean[20]; flags != 0x10 {
		t.Errorf("VP8X flags %#x, want alpha only", flags)
	}
	if size := binary.LittleEndian.Uint32(clean[4:]); int(size) != len(clean)-8 {
		t.Errorf("RIFF size %d for %d bytes", size, len(clean))
	}
	if w, h, err := content.ImageSize(clean, "image/webp"); err != nil || w != 16 || h != 8 {
		t.Errorf("size %d×%d (%v), want 16×8", w, h, err)
	}
	clean, err = content.StripImageMetadata(webpWith(append([]byte("Exif\x00\x00"), gpsTIFF(6)...)), "image/webp")
	if err != nil {
		t.Fatal(err)
	}
	if flags := clean[20]; flags != 0x18 || bytes.Contains(clean, []byte(secret)) ||
		!bytes.HasSuffix(clean, []byte("II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00")) {
		t.Errorf("orientation 6: flags %#x, want the orientation alone in EXIF", flags)
	}
}

// hugeHeaders are headers of 9000 × 9000 images (81 megapixels) with
// nothing behind them but a few bytes: what a decompression bomb sends.
func hugeHeaders() map[string][]byte {
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 9000), 9000)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	pngData := append(append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...), pngChunk("IEND", nil)...)
	sof := []byte{8}
	sof = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(sof, 9000), 9000)
	sof = append(sof, 1, 1, 0x11, 0)
	jpegData := append([]byte{0xFF, 0xD8}, segment(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))...)
	jpegData = append(append(jpegData, segment(0xC0, sof)...), 0xFF, 0xD9)
	gifData := append([]byte("GIF89a"), binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 9000), 9000)...)
	gifData = append(gifData, 0, 0, 0, 0x3B)
	bits := uint32(8999) | uint32(8999)<<14
	vp8l := append([]byte("VP8L\x05\x00\x00\x00\x2F"), binary.LittleEndian.AppendUint32(nil, bits)...)
	webpData := append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(4+len(vp8l)+1)), "WEBP"...)
	webpData = append(append(webpData, vp8l...), 0)
	return map[string][]byte{"image/png": pngData, "image/jpeg": jpegData, "image/gif": gifData, "image/webp": webpData}
}

// TestImageSizeReadsTheHeaderOnly: a 9000 × 9000 header of each type is
// read as such, and reading it allocates next to nothing (decoding it
// would take 324 MB).
func TestImageSizeReadsTheHeaderOnly(t *testing.T) {
	for mime, data := range hugeHeaders() {
		if got := content.SniffImage(data); got != mime {
			t.Fatalf("%s sniffs as %q", mime, got)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w, h, err := content.ImageSize(data, mime)
		runtime.ReadMemStats(&after)
		if err != nil || w != 9000 || h != 9000 {
			t.Errorf("%s: %d×%d (%v), want 9000×9000", mime, w, h, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: reading the header allocated %d bytes", mime, grew)
		}
	}
}

// TestStripRefusesWhatItDoesNotUnderstand: a file cut short, or whose
// structure is not its format's, is an error, never passed on as it is.
func TestStripRefusesWhatItDoesNotUnderstand(t *testing.T) {
	data, _ := cameraJPEG(t, 0)
	var buf bytes.Buffer
	png.Encode(&buf, picture())
	for mime, bad := range map[string][]byte{
		"image/jpeg": data[:len(data)/2],
		"image/png":  buf.Bytes()[:40],
		"image/gif":  []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00\x99"),
		"image/webp": []byte("RIFF\x20\x00\x00\x00WEBPVP8L\xff\xff\x00\x00"),
	} {
		if _, err := content.StripImageMetadata(bad, mime); err == nil {
			t.Errorf("%s: a broken file was passed on", mime)
		}
	}
}
