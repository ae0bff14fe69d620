// Command monkbrowse is the monkbrowse MCP server: AI apps start it over
// stdio; it listens on 127.0.0.1 for the monkbrowse Chrome extension and
// serves the AI's tool calls on the tabs the person shared. The command
// line, every subcommand included, is server/internal/cli.
//
// stdout carries MCP and nothing else; every log line goes to stderr.
package main

import (
	"os"

	"github.com/monkbrowse/monkbrowse/server/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
