module github.com/monkbrowse/monkbrowse/protocol

go 1.25.0

require github.com/monkbrowse/monkbrowse/messaging v0.0.0

replace github.com/monkbrowse/monkbrowse/messaging => ../messaging
