package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func TestFormatDownloads(t *testing.T) {
	dl := protocol.DownloadInfo{ID: 7, URL: "https://a.test/r.csv", Filename: "/home/ada/Downloads/r.csv", BytesReceived: 4096, State: "complete", TabID: 3}
	out := FormatDownloads("work", &protocol.DownloadsWait{URLContains: "r.csv", TimeoutMs: 1000}, protocol.DownloadsResult{Downloads: []protocol.DownloadInfo{dl}, Waited: true, Matched: 7})
	if !strings.Contains(out, "A download matching \"r.csv\" finished (the first line below).\n") ||
		!strings.Contains(out, PageContentNote+"\nFinished: r.csv — /home/ada/Downloads/r.csv (complete, 4.0 kB") {
		t.Errorf("%s", out)
	}
	out = FormatDownloads("work", &protocol.DownloadsWait{TimeoutMs: 1500}, protocol.DownloadsResult{Waited: true})
	if !strings.Contains(out, "No download from a shared tab finished within 1.5s") || !strings.Contains(out, `No downloads from the shared tabs of profile "work"`) {
		t.Errorf("%s", out)
	}
	var many []protocol.DownloadInfo
	for i := 0; i < 60; i++ {
		many = append(many, protocol.DownloadInfo{ID: i, URL: fmt.Sprint("https://a.test/", i), State: "in_progress", BytesReceived: 1, TotalBytes: 10})
	}
	out = FormatDownloads("work", nil, protocol.DownloadsResult{Downloads: many})
	if !strings.Contains(out, "the 10 oldest are left out") || !strings.Contains(out, "in progress, 1 B of 10 B") {
		t.Errorf("%s", out)
	}
}

// Downloads another tab may have started are left out and the answer says how many.
func TestFormatDownloadsAmbiguous(t *testing.T) {
	out := FormatDownloads("work", nil, protocol.DownloadsResult{Ambiguous: 2})
	if !strings.Contains(out, "2 download(s) are not listed: a tab that is not shared also requested the same URL") {
		t.Fatalf("the left-out downloads are not mentioned:\n%s", out)
	}
	if i, j := strings.Index(out, "not listed"), strings.Index(out, PageContentNote); j >= 0 && j < i {
		t.Fatalf("our sentence is after the page-content note:\n%s", out)
	}
	if strings.Contains(FormatDownloads("work", nil, protocol.DownloadsResult{}), "not listed") {
		t.Fatal("mentions left-out downloads when there are none")
	}
}
