package owner

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
)

// TestRefusalLinesCutEachField (issue 40, finding 7): a Host, an Origin or
// a foreign extension id of 10 KiB (under the header limit) is refused as
// before, but its refusal line carries at most MaxLogField bytes of it,
// and the answer to the foreign extension does not echo it at all.
func TestRefusalLinesCutEachField(t *testing.T) {
	long := strings.Repeat("a", 10<<10) + "TAILMARK"
	for _, tc := range []struct {
		name string
		try  func(t *testing.T, o *Owner)
	}{
		{"Host", func(t *testing.T, o *Owner) {
			req, _ := http.NewRequest("GET", "http://"+o.Addr().String()+"/", nil)
			req.Host = long + ".example"
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a foreign Host: %s", resp.Status)
			}
		}},
		{"Origin", func(t *testing.T, o *Owner) {
			ctx, cancel := context.WithTimeout(context.Background(), watchdog)
			defer cancel()
			_, err := fakeext.Dial(ctx, wsURL(o), "https://"+long+".example")
			var de *fakeext.DialError
			if !errors.As(err, &de) || de.Status != http.StatusForbidden {
				t.Fatalf("a web page's Origin: %v", err)
			}
		}},
		{"extension id", func(t *testing.T, o *Owner) {
			ctx, cancel := context.WithTimeout(context.Background(), watchdog)
			defer cancel()
			_, err := fakeext.Connect(ctx, fakeext.Options{Secret: testPairing, URL: wsURL(o), Origin: "chrome-extension://" + long})
			var rej *fakeext.RejectedError
			if !errors.As(err, &rej) {
				t.Fatalf("a foreign extension: %v", err)
			}
			if strings.Contains(rej.Ack.Reason, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") || len(rej.Ack.Reason) > 1000 {
				t.Fatalf("the answer echoes what is not an extension id (%d bytes): %.300s", len(rej.Ack.Reason), rej.Ack.Reason)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			l := zerolog.New(&logs)
			o := startOwner(t, Config{Self: proc.Self{Logger: &l}})
			tc.try(t, o)
			var line string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "refused") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no refusal line:\n%.2000s", logs.String())
			}
			if strings.Contains(line, "TAILMARK") || len(line) > 4*netguard.MaxLogField+400 {
				t.Fatalf("the refusal line carries the field whole (%d bytes): %.400s", len(line), line)
			}
			if !strings.Contains(line, "bytes cut") {
				t.Fatalf("the refusal line does not say the field was cut: %.400s", line)
			}
		})
	}
}
