// Command gents writes the extension's TypeScript protocol file from the Go
// protocol package. Run it through `go generate` in protocol/.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func main() {
	out := flag.String("out", "../extension/lib/protocol.gen.ts", "file to write")
	flag.Parse()
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gents:", err)
		os.Exit(1)
	}
	tmp := *out + ".tmp"
	if err := os.WriteFile(tmp, protocol.TypeScript(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gents:", err)
		os.Exit(1)
	}
	if err := os.Rename(tmp, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gents:", err)
		os.Exit(1)
	}
}
