package content

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	_ "image/gif"  // image.DecodeConfig reads GIF headers
	_ "image/jpeg" // and JPEG's
	_ "image/png"  // and PNG's
)

// An uploaded image is kept as its bytes, never decoded and encoded again
// (that would lose quality and change every byte). Two things are done to
// it before it is saved, from its header and its structure only:
//
//   - It is refused above MaxImagePixels: a small file can declare a huge
//     picture (a "decompression bomb") that every browser showing it, and
//     any later Studio job that decoded it, would have to allocate.
//   - Its metadata is removed: EXIF (a camera's GPS position, its serial
//     number, the time), XMP, IPTC, comments and text chunks. What is kept
//     is what the picture needs to look as it did: the colour profile
//     (JPEG APP2 ICC_PROFILE, PNG iCCP, WebP ICCP), JFIF and Adobe's colour
//     transform (JPEG APP0, APP14), PNG's rendering chunks, GIF's and
//     WebP's animation. The orientation is the one EXIF field kept: a
//     phone's portrait photo is stored sideways with orientation 6, and
//     browsers turn it by that field; without it the photo would show on
//     its side. So an image whose EXIF says an orientation other than 1
//     keeps a new EXIF block of 26 bytes holding that one field; any other
//     loses its EXIF whole.

// MaxImagePixels is the most pixels (width × height) an uploaded image may
// declare: 40 megapixels, more than a full-frame camera's photo.
const MaxImagePixels = 40_000_000

// ErrImageStructure: the image's bytes do not follow its format's
// structure as far as the metadata walk reads it.
var ErrImageStructure = errors.New("content: image structure not understood")

// ImageSize reads an image's width and height from its header alone (no
// pixel is decoded), for the types of AssetTypes.
func ImageSize(data []byte, mime string) (width, height int, err error) {
	if mime == "image/webp" {
		return webpSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, ErrImageStructure
	}
	return cfg.Width, cfg.Height, nil
}

// StripImageMetadata returns data without its metadata (see above), for
// the types of AssetTypes; other types come back as they are. The result
// shares no memory with data.
func StripImageMetadata(data []byte, mime string) ([]byte, error) {
	switch mime {
	case "image/jpeg":
		return stripJPEG(data)
	case "image/png":
		return stripPNG(data)
	case "image/gif":
		return stripGIF(data)
	case "image/webp":
		return stripWebP(data)
	}
	return bytes.Clone(data), nil
}

// exifOrientation is the Orientation (tag 0x0112) of a TIFF structure (an
// EXIF block past its "Exif\0\0"), 0 when it has none or it is not 1–8.
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(tiff[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(tiff[2:]) != 42 {
		return 0
	}
	off := int(bo.Uint32(tiff[4:]))
	if off < 8 || off+2 > len(tiff) {
		return 0
	}
	n := int(bo.Uint16(tiff[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > len(tiff) {
			break
		}
		if bo.Uint16(tiff[e:]) == 0x0112 && bo.Uint16(tiff[e+2:]) == 3 && bo.Uint32(tiff[e+4:]) == 1 {
			if v := int(bo.Uint16(tiff[e+8:])); v >= 1 && v <= 8 {
				return v
			}
		}
	}
	return 0
}

// orientationTIFF is a TIFF structure holding only an orientation: a
// little-endian header, one IFD of one entry, no next IFD (26 bytes).
func orientationTIFF(v int) []byte {
	b := []byte("II*\x00\x08\x00\x00\x00")
	b = binary.LittleEndian.AppendUint16(b, 1)      // one entry
	b = binary.LittleEndian.AppendUint16(b, 0x0112) // Orientation
	b = binary.LittleEndian.AppendUint16(b, 3)      // SHORT
	b = binary.LittleEndian.AppendUint32(b, 1)      // one value
	b = binary.LittleEndian.AppendUint16(b, uint16(v))
	b = append(b, 0, 0)                           // the value's padding
	return binary.LittleEndian.AppendUint32(b, 0) // no next IFD
}

// keptOrientation is the TIFF to keep in place of an EXIF block: nil when
// its orientation is 1 or none.
func keptOrientation(tiff []byte) []byte {
	if v := exifOrientation(tiff); v > 1 {
		return orientationTIFF(v)
	}
	return nil
}

var exifHeader = []byte("Exif\x00\x00")

// stripJPEG walks a JPEG's segments: APP0 JFIF, APP2 ICC_PROFILE and
// APP14 Adobe stay; every other APPn (EXIF and XMP in APP1, MPF's second
// picture with its own EXIF in APP2, IPTC in APP13, …) and every comment
// go; the first EXIF's orientation stays as a new APP1 (see above). The
// frame, tables and scans are copied as they are, and nothing after the
// end of image is kept (a trailer or an appended preview).
func stripJPEG(data []byte) ([]byte, error) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return nil, ErrImageStructure
	}
	out := make([]byte, 0, len(data))
	out = append(out, 0xFF, 0xD8)
	exifSeen := false
	i := 2
	for {
		if i >= len(data) || data[i] != 0xFF {
			return nil, ErrImageStructure
		}
		for i < len(data) && data[i] == 0xFF { // fill bytes
			i++
		}
		if i >= len(data) {
			return nil, ErrImageStructure
		}
		marker := data[i]
		i++
		switch {
		case marker == 0xD9: // end of image
			return append(out, 0xFF, 0xD9), nil
		case marker >= 0xD0 && marker <= 0xD7, marker == 0x01: // no length
			out = append(out, 0xFF, marker)
			continue
		}
		if i+2 > len(data) {
			return nil, ErrImageStructure
		}
		n := int(binary.BigEndian.Uint16(data[i:]))
		if n < 2 || i+n > len(data) {
			return nil, ErrImageStructure
		}
		seg, payload := data[i-2:i+n], data[i+2:i+n]
		i += n
		keep := true
		switch {
		case marker == 0xE0:
			keep = bytes.HasPrefix(payload, []byte("JFIF\x00"))
		case marker == 0xE1:
			keep = false
			if tiff, ok := bytes.CutPrefix(payload, exifHeader); ok && !exifSeen {
				exifSeen = true
				if kept := keptOrientation(tiff); kept != nil {
					out = append(out, 0xFF, 0xE1)
					out = binary.BigEndian.AppendUint16(out, uint16(2+len(exifHeader)+len(kept)))
					out = append(append(out, exifHeader...), kept...)
				}
			}
		case marker == 0xE2:
			keep = bytes.HasPrefix(payload, []byte("ICC_PROFILE\x00"))
		case marker == 0xEE:
			keep = bytes.HasPrefix(payload, []byte("Adobe"))
		case marker >= 0xE3 && marker <= 0xEF, marker == 0xFE: // other APPn, comments
			keep = false
		}
		if keep {
			out = append(out, seg...)
		}
		if marker != 0xDA { // not a scan
			continue
		}
		// The scan's entropy-coded data runs to the next marker that is
		// not a stuffed 0xFF00 or a restart marker.
		j := i
		for j < len(data) {
			if data[j] == 0xFF && j+1 < len(data) {
				if next := data[j+1]; next == 0x00 || (next >= 0xD0 && next <= 0xD7) {
					j += 2
					continue
				}
				break
			}
			j++
		}
		if j >= len(data) {
			return nil, ErrImageStructure // no end of image
		}
		out = append(out, data[i:j]...)
		i = j
	}
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngKept are the ancillary chunks a PNG keeps: those that change how it
// looks (transparency, colour, gamma, pixel size, background, HDR) and
// APNG's animation. Critical chunks (IHDR, PLTE, IDAT, IEND) always stay;
// eXIf keeps its orientation only; text, time and any other chunk go.
var pngKept = map[string]bool{"tRNS": true, "gAMA": true, "cHRM": true, "sRGB": true, "iCCP": true, "sBIT": true,
	"bKGD": true, "pHYs": true, "cICP": true, "mDCv": true, "cLLi": true, "acTL": true, "fcTL": true, "fdAT": true}

// stripPNG copies a PNG's chunks but the ones that carry metadata, each
// kept chunk whole with its CRC, and nothing after IEND.
func stripPNG(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, pngSignature) {
		return nil, ErrImageStructure
	}
	out := make([]byte, 0, len(data))
	out = append(out, pngSignature...)
	for i := len(pngSignature); ; {
		if i+12 > len(data) {
			return nil, ErrImageStructure // no IEND
		}
		n := int(binary.BigEndian.Uint32(data[i:]))
		if n < 0 || n > len(data)-i-12 {
			return nil, ErrImageStructure
		}
		typ := string(data[i+4 : i+8])
		chunk := data[i : i+12+n]
		i += 12 + n
		switch {
		case typ == "eXIf":
			if kept := keptOrientation(chunk[8 : 8+n]); kept != nil {
				out = appendPNGChunk(out, "eXIf", kept)
			}
		case typ[0] >= 'A' && typ[0] <= 'Z', pngKept[typ]: // critical, or how it looks
			out = append(out, chunk...)
		}
		if typ == "IEND" {
			return out, nil
		}
	}
}

func appendPNGChunk(out []byte, typ string, payload []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(payload)))
	start := len(out)
	out = append(append(out, typ...), payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// gifKeptApps are the application extensions a GIF keeps: the loop count
// (NETSCAPE2.0, ANIMEXTS1.0) and the colour profile (ICCRGBG1). XMP
// ("XMP DataXMP") and any other go, as comments do.
var gifKeptApps = []string{"NETSCAPE2.0", "ANIMEXTS1.0", "ICCRGBG1012"}

// stripGIF copies a GIF's blocks but its comments and the application
// extensions it does not keep, and nothing after its trailer.
func stripGIF(data []byte) ([]byte, error) {
	if len(data) < 13 {
		return nil, ErrImageStructure
	}
	i := 13
	if p := data[10]; p&0x80 != 0 { // the global colour table
		i += 3 << ((p & 7) + 1)
	}
	if i > len(data) {
		return nil, ErrImageStructure
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:i]...)
	// subBlocks is the end of the sub-blocks starting at j.
	subBlocks := func(j int) (int, error) {
		for j < len(data) {
			size := int(data[j])
			j++
			if size == 0 {
				return j, nil
			}
			j += size
		}
		return 0, ErrImageStructure
	}
	for i < len(data) {
		start := i
		switch data[i] {
		case 0x3B: // trailer
			return append(out, 0x3B), nil
		case 0x2C: // an image: its descriptor, local colour table, LZW size, data
			if i+10 > len(data) {
				return nil, ErrImageStructure
			}
			j := i + 10
			if p := data[i+9]; p&0x80 != 0 {
				j += 3 << ((p & 7) + 1)
			}
			j++ // LZW minimum code size
			if j > len(data) {
				return nil, ErrImageStructure
			}
			end, err := subBlocks(j)
			if err != nil {
				return nil, err
			}
			out, i = append(out, data[start:end]...), end
		case 0x21: // an extension: its label, then sub-blocks
			if i+2 > len(data) {
				return nil, ErrImageStructure
			}
			label := data[i+1]
			end, err := subBlocks(i + 2)
			if err != nil {
				return nil, err
			}
			keep := label != 0xFE // comments go
			if label == 0xFF {
				keep = false
				if i+3 < len(data) && data[i+2] == 11 && i+14 <= len(data) {
					for _, app := range gifKeptApps {
						keep = keep || string(data[i+3:i+14]) == app
					}
				}
			}
			if keep {
				out = append(out, data[start:end]...)
			}
			i = end
		default:
			return nil, ErrImageStructure
		}
	}
	return nil, ErrImageStructure // no trailer
}

// webpChunks walks a WebP's RIFF chunks: fourcc, payload (without its
// padding byte) and the whole chunk as stored.
func webpChunks(data []byte, each func(fourcc string, payload, whole []byte)) error {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return ErrImageStructure
	}
	end := min(len(data), 8+int(binary.LittleEndian.Uint32(data[4:])))
	for i := 12; i < end; {
		if i+8 > end {
			return ErrImageStructure
		}
		n := int(binary.LittleEndian.Uint32(data[i+4:]))
		if n < 0 || n > end-i-8 {
			return ErrImageStructure
		}
		whole := n + n&1
		if i+8+whole > end {
			whole = n // a last chunk without its padding byte
		}
		each(string(data[i:i+4]), data[i+8:i+8+n], data[i:i+8+whole])
		i += 8 + whole
	}
	return nil
}

// webpSize reads a WebP's canvas from its first chunk: VP8X's canvas, or
// the frame header of a simple lossy (VP8) or lossless (VP8L) image.
func webpSize(data []byte) (int, int, error) {
	w, h, found := 0, 0, false
	err := webpChunks(data, func(fourcc string, p, _ []byte) {
		if found {
			return
		}
		found = true
		switch {
		case fourcc == "VP8X" && len(p) >= 10:
			w = 1 + (int(p[4]) | int(p[5])<<8 | int(p[6])<<16)
			h = 1 + (int(p[7]) | int(p[8])<<8 | int(p[9])<<16)
		case fourcc == "VP8 " && len(p) >= 10 && p[3] == 0x9D && p[4] == 0x01 && p[5] == 0x2A:
			w = int(binary.LittleEndian.Uint16(p[6:])) & 0x3FFF
			h = int(binary.LittleEndian.Uint16(p[8:])) & 0x3FFF
		case fourcc == "VP8L" && len(p) >= 5 && p[0] == 0x2F:
			bits := binary.LittleEndian.Uint32(p[1:])
			w = 1 + int(bits&0x3FFF)
			h = 1 + int(bits>>14&0x3FFF)
		}
	})
	if err != nil || w == 0 || h == 0 {
		return 0, 0, ErrImageStructure
	}
	return w, h, nil
}

// webpKept are the chunks a WebP keeps: its picture, alpha, animation and
// colour profile. EXIF keeps its orientation only; XMP and any other go.
var webpKept = map[string]bool{"VP8 ": true, "VP8L": true, "VP8X": true, "ALPH": true, "ANIM": true, "ANMF": true, "ICCP": true}

// stripWebP copies a WebP's chunks but its metadata, and makes VP8X's
// flags and the RIFF size say what is left.
func stripWebP(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data))
	out = append(out, "RIFF\x00\x00\x00\x00WEBP"...)
	vp8x := -1 // where VP8X's flags are in out
	var orientation []byte
	err := webpChunks(data, func(fourcc string, p, whole []byte) {
		switch {
		case fourcc == "EXIF":
			if orientation == nil {
				orientation = keptOrientation(bytes.TrimPrefix(p, exifHeader))
			}
		case webpKept[fourcc]:
			if fourcc == "VP8X" && len(p) >= 10 { // a shorter one has no flags of its own to clear
				vp8x = len(out) + 8
			}
			out = append(out, whole...)
		}
	})
	if err != nil {
		return nil, err
	}
	if vp8x >= 0 && vp8x < len(out) {
		out[vp8x] &^= 0x08 | 0x04 // EXIF and XMP flags
		if orientation != nil {
			out[vp8x] |= 0x08
			out = append(out, "EXIF"...)
			out = binary.LittleEndian.AppendUint32(out, uint32(len(orientation)))
			out = append(out, orientation...) // 26 bytes: no padding
		}
	}
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out, nil
}
