package run

import (
	"bytes"
	"context"
	"image"
	"strconv"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
)

// runShots is the formats round: on each page, every server's viewport
// screenshot in every format its tool offers (servers.ShotFormats), reps
// times, the server order rotating as in the task rounds. The page is loaded
// first, untimed.
func runShots(ctx context.Context, sessions []*session, pages []Page, fx *fixtures.Server, reps int, logf func(string, ...any)) []Shot {
	var out []Shot
	for rep := 0; rep < reps; rep++ {
		for _, p := range pages {
			for j := range sessions {
				s := sessions[(j+rep)%len(sessions)]
				if s.dead != nil {
					continue
				}
				url := fx.URL(p.Path) + "?shots=" + strconv.Itoa(rep) + "&server=" + s.srv.Key
				if _, err := s.call(ctx, s.srv.Tools["navigate"], s.srv.NavigateArgs(url)); err != nil {
					logf("shots %s %s: navigate failed: %v", s.srv.Key, p.Key, err)
					continue
				}
				// The formats' order rotates too, so none is always the one
				// that waits for the capture before it.
				fs := s.srv.ShotFormats()
				for i := range fs {
					f := fs[(i+rep)%len(fs)]
					r, err := s.call(ctx, s.srv.Tools["screenshot"], f.Args)
					sh := Shot{Server: s.srv.Key, Page: p.Key, Format: f.Label, Rep: rep, Ms: ms(r.Elapsed), TextBytes: len(r.Text)}
					switch {
					case err != nil:
						sh.Error = err.Error()
					case r.IsError:
						sh.Error = "tool error: " + clip(r.Text, 300)
					case len(r.Images) == 0:
						sh.Error = "no image in the result"
					default:
						im := r.Images[0]
						sh.ImageBytes, sh.MIME = im.Bytes, im.MIME
						if w, h, ok := imageSize(im.Data); ok {
							sh.ImageW, sh.ImageH, sh.OK = w, h, true
						} else {
							sh.Error = "the image does not decode"
						}
					}
					if !sh.OK {
						logf("shots %s %s %s: FAILED %s", s.srv.Key, p.Key, f.Label, sh.Error)
					}
					out = append(out, sh)
				}
			}
		}
	}
	return out
}

// imageSize reads an image's pixel size: PNG and JPEG by the standard
// library, WebP from its first chunk (the standard library has no WebP
// decoder).
func imageSize(b []byte) (int, int, bool) {
	if c, _, err := image.DecodeConfig(bytes.NewReader(b)); err == nil {
		return c.Width, c.Height, true
	}
	return webpSize(b)
}

// webpSize reads a WebP file's dimensions from its VP8, VP8L or VP8X chunk
// (RFC 9649).
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	le16 := func(i int) int { return int(b[i]) | int(b[i+1])<<8 }
	le24 := func(i int) int { return int(b[i]) | int(b[i+1])<<8 | int(b[i+2])<<16 }
	switch string(b[12:16]) {
	case "VP8 ": // lossy: a key frame's start code, then 14-bit sizes
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		return le16(26) & 0x3fff, le16(28) & 0x3fff, true
	case "VP8L": // lossless: a signature byte, then 14-bit sizes minus one
		if b[20] != 0x2f {
			return 0, 0, false
		}
		bits := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	case "VP8X": // extended: 24-bit canvas sizes minus one
		return le24(24) + 1, le24(27) + 1, true
	}
	return 0, 0, false
}
