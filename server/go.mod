module github.com/monkbrowse/monkbrowse/server

go 1.25.0

require (
	github.com/monkbrowse/monkbrowse/forwarder v0.0.0
	github.com/monkbrowse/monkbrowse/messaging v0.0.0
	github.com/monkbrowse/monkbrowse/protocol v0.0.0
	github.com/monkbrowse/monkbrowse/tools v0.0.0
)

replace (
	github.com/monkbrowse/monkbrowse/forwarder => ../forwarder
	github.com/monkbrowse/monkbrowse/messaging => ../messaging
	github.com/monkbrowse/monkbrowse/protocol => ../protocol
	github.com/monkbrowse/monkbrowse/tools => ../tools
)
