module github.com/monkbrowse/monkbrowse/forwarder

go 1.25.0

require (
	github.com/monkbrowse/monkbrowse/messaging v0.0.0
	github.com/monkbrowse/monkbrowse/protocol v0.0.0
)

replace (
	github.com/monkbrowse/monkbrowse/messaging => ../messaging
	github.com/monkbrowse/monkbrowse/protocol => ../protocol
)
