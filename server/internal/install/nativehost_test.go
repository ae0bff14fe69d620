package install

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHostDirsMac(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "Library/Application Support/Google/Chrome Canary"), 0o700)
	dirs := HostDirs(Env{Home: home, GOOS: "darwin"})
	if len(dirs) != 1 || !strings.HasSuffix(dirs[0], "Google/Chrome Canary/NativeMessagingHosts") {
		t.Fatalf("dirs %v", dirs)
	}
}

func nativeFrame(s string) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.NativeEndian, uint32(len(s)))
	b.WriteString(s)
	return b.Bytes()
}

func TestServeNativeHost(t *testing.T) {
	reply := func() NativeHostReply { return NativeHostReply{Secret: "s3cret", Version: "9"} }
	var out bytes.Buffer
	if err := ServeNativeHost(bytes.NewReader(nativeFrame(`{"type":"pairing"}`)), &out, reply); err != nil {
		t.Fatal(err)
	}
	var n uint32
	binary.Read(&out, binary.NativeEndian, &n)
	if got := out.String(); int(n) != len(got) || got != `{"secret":"s3cret","version":"9"}` {
		t.Fatalf("reply %d %q", n, got)
	}
	out.Reset()
	if err := ServeNativeHost(bytes.NewReader(nativeFrame(`{"type":"other"}`)), &out, reply); err != nil || strings.Contains(out.String(), "s3cret") {
		t.Fatalf("an unknown request got %q (%v)", out.String(), err)
	}
	huge := make([]byte, 4)
	binary.NativeEndian.PutUint32(huge, MaxNativeMessage+1)
	if err := ServeNativeHost(bytes.NewReader(huge), &out, reply); err == nil {
		t.Fatal("an oversized request was read")
	}
}
