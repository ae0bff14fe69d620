package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/server/internal/cli"
)

// stuckStderr is a stderr nobody reads: every Write waits until release is
// closed.
type stuckStderr struct {
	release chan struct{}
	writes  atomic.Int64
}

func (s *stuckStderr) Write(p []byte) (int, error) {
	s.writes.Add(1)
	<-s.release
	return len(p), nil
}

// TestAnswersWhileStderrIsNotRead (issue 40, finding 7): an AI app that
// stops reading monkbrowse's stderr must not stop it answering. The whole
// program runs in this process with a stderr whose every write blocks
// (--log-level debug: every step logs); initialize and a tool call are
// still answered on stdout, and closing stdin still ends it.
func TestAnswersWhileStderrIsNotRead(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	stderr := &stuckStderr{release: make(chan struct{})}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		rc := cli.Run([]string{"--port", "0", "--control-port", strconv.Itoa(freePort(t)), "--log-level", "debug"}, inR, outW, stderr)
		outW.Close()
		exited <- rc
	}()
	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	answer := func(id int) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended before answer %d", id)
				}
				if strings.Contains(l, fmt.Sprintf(`"id":%d,`, id)) {
					return l
				}
			case <-time.After(watchdog):
				t.Fatalf("watchdog: no answer %d while stderr is not read (%d log writes attempted)", id, stderr.writes.Load())
			}
		}
	}
	fmt.Fprintln(inW, initMsg)
	answer(1)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, callMsg(2, "browser_list_tabs", `{}`))
	if a := answer(2); !strings.Contains(a, "No browser is connected") {
		t.Fatalf("browser_list_tabs: %s", a)
	}
	if stderr.writes.Load() == 0 {
		t.Fatal("nothing was logged: the test proves nothing")
	}
	inW.Close()
	select {
	case rc := <-exited:
		if rc != 0 {
			t.Fatalf("exit %d", rc)
		}
	case <-time.After(watchdog):
		t.Fatal("watchdog: closing stdin did not end monkbrowse while stderr is not read")
	}
	close(stderr.release)
}
