package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode screenshots
	_ "image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/mcpdrive"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// runTask runs the five steps once: navigate, snapshot, click, type,
// screenshot. Checks run after each timed call and are not timed.
func runTask(ctx context.Context, cfg Config, s *session, p Page, fx *fixtures.Server, rep int) []Sample {
	srv := s.srv
	url := fx.URL(p.Path) + "?rep=" + strconv.Itoa(rep) + "&server=" + srv.Key
	mk := func(step string, r mcpdrive.Result, err error) Sample {
		sm := Sample{Server: srv.Key, Page: p.Key, Step: step, Rep: rep, Ms: ms(r.Elapsed), TextBytes: len(r.Text)}
		for i, im := range r.Images {
			sm.ImageBytes += im.Bytes
			if i == 0 {
				if c, _, derr := image.DecodeConfig(bytes.NewReader(im.Data)); derr == nil {
					sm.ImageW, sm.ImageH = c.Width, c.Height
				}
			}
		}
		switch {
		case err != nil:
			sm.Error = err.Error()
		case r.IsError:
			sm.Error = "tool error: " + clip(r.Text, 300)
		default:
			sm.OK = true
		}
		if rep == 0 {
			path := responsePath(cfg, srv.Key, p.Key, step)
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			_ = os.WriteFile(path, []byte(r.Text), 0o644)
			if len(r.Images) > 0 {
				_ = os.WriteFile(strings.TrimSuffix(path, ".txt")+".img", r.Images[0].Data, 0o644)
			}
		}
		return sm
	}
	verify := func(sm *Sample, expr string) {
		if !sm.OK {
			return
		}
		if err := s.check(ctx, expr); err != nil {
			sm.OK, sm.Error = false, err.Error()
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "transport") {
				s.dead = err
			}
		}
	}
	skipped := func(step, why string) Sample {
		return Sample{Server: srv.Key, Page: p.Key, Step: step, Rep: rep, Skipped: true, Error: why}
	}
	var out []Sample

	r, err := s.call(ctx, srv.Tools["navigate"], srv.NavigateArgs(url))
	nav := mk("navigate", r, err)
	navText := r.Text
	verify(&nav, fmt.Sprintf(`location.href === %q && document.title === %q && document.readyState !== 'loading'`, url, p.Title))
	out = append(out, nav)

	r, err = s.call(ctx, srv.Tools["snapshot"], srv.SnapshotArgs())
	snap := mk("snapshot", r, err)
	snapText := r.Text
	var clickRef, typeRef string
	if snap.OK {
		// The page as the AI knows it: this snapshot, or, when the server
		// answered that the page is unchanged since an answer that showed
		// it whole (monkbrowse after a navigation), that answer's snapshot,
		// whose refs are still valid.
		page := r.Text
		if snapshot.Unchanged(r.Text) && nav.OK {
			page = navText
		}
		var e1, e2 error
		clickRef, e1 = snapshot.Find(page, srv.Format, p.Click.Role, p.Click.Name)
		typeRef, e2 = snapshot.Find(page, srv.Format, p.Type.Role, p.Type.Name)
		// A target the budgeted snapshot left out is looked up the way an
		// AI would, with the server's find tool; its time and bytes count
		// in the snapshot step.
		if find := srv.Tools["find"]; find != "" {
			for _, tg := range []struct {
				t   Target
				ref *string
				err *error
			}{{p.Click, &clickRef, &e1}, {p.Type, &typeRef, &e2}} {
				if *tg.err == nil {
					continue
				}
				fr, ferr := s.call(ctx, find, srv.FindArgs(tg.t.Role, tg.t.Name))
				if ferr != nil {
					continue
				}
				snap.Ms += ms(fr.Elapsed)
				snap.TextBytes += len(fr.Text)
				snap.FindCalls++
				snap.FindMs += ms(fr.Elapsed)
				snap.FindBytes += len(fr.Text)
				*tg.ref, *tg.err = snapshot.Find(fr.Text, srv.Format, tg.t.Role, tg.t.Name)
			}
		}
		var e3 error
		for _, ft := range p.FrameTargets {
			if _, err := snapshot.Find(page, srv.Format, ft.Role, ft.Name); err != nil {
				e3 = errors.Join(e3, fmt.Errorf("the cross-site frames' content is not in the snapshot: %w", err))
			}
		}
		if err := errors.Join(e1, e2, e3); err != nil {
			snap.OK, snap.Error = false, clip(err.Error(), 500)
		}
	}
	out = append(out, snap)

	if clickRef == "" {
		out = append(out, skipped("click", "no ref for the button in the snapshot"))
	} else {
		r, err = s.call(ctx, srv.Tools["click"], srv.ClickArgs(clickRef, p.Click.Element))
		c := mk("click", r, err)
		verify(&c, p.ClickCheck)
		out = append(out, c)
	}
	if typeRef == "" {
		out = append(out, skipped("type", "no ref for the field in the snapshot"))
	} else {
		text := p.TypeText(rep)
		r, err = s.call(ctx, srv.Tools["type"], srv.TypeArgs(typeRef, p.Type.Element, text))
		t := mk("type", r, err)
		verify(&t, p.TypeCheck(text))
		out = append(out, t)
	}

	r, err = s.call(ctx, srv.Tools["screenshot"], srv.ScreenshotArgs())
	shot := mk("screenshot", r, err)
	if shot.OK && (len(r.Images) == 0 || shot.ImageW == 0) {
		shot.OK, shot.Error = false, "no decodable image in the result"
	}
	out = append(out, shot)

	// A snapshot that answered unchanged read nothing: the page's reading
	// is measured apart, by a full snapshot after the task (ReadStep, not
	// part of the task's sums), for the iframe figure.
	if snap.OK && snapshot.Unchanged(snapText) {
		r, err = s.call(ctx, srv.Tools["snapshot"], srv.SnapshotArgs())
		full := mk(ReadStep, r, err)
		if full.OK && snapshot.Unchanged(r.Text) {
			full.OK, full.Error = false, "the second snapshot answered unchanged too"
		}
		out = append(out, full)
	}
	return out
}

// ReadStep is the full snapshot taken after a task whose snapshot step
// answered that the page was unchanged (monkbrowse after its navigation
// answer showed the page whole): what reading the page costs.
const ReadStep = "snapshot-read"

// countElements navigates one session to url and counts its DOM elements.
func countElements(ctx context.Context, sessions []*session, url string) int {
	for _, s := range sessions {
		if s.dead != nil {
			continue
		}
		if _, err := s.call(ctx, s.srv.Tools["navigate"], s.srv.NavigateArgs(url+"?count")); err != nil {
			continue
		}
		r, err := s.call(ctx, s.srv.Tools["evaluate"], s.srv.EvaluateArgs(`'ELEMENTS=' + document.getElementsByTagName('*').length + '='`))
		if err != nil {
			continue
		}
		if i := strings.Index(r.Text, "ELEMENTS="); i >= 0 {
			rest := r.Text[i+len("ELEMENTS="):]
			if j := strings.IndexByte(rest, '='); j > 0 {
				if n, err := strconv.Atoi(rest[:j]); err == nil {
					return n
				}
			}
		}
	}
	return 0
}
