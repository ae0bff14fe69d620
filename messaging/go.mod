module github.com/monkbrowse/monkbrowse/messaging

go 1.25.0

require (
	github.com/gorilla/websocket v1.5.3
	go.uber.org/goleak v1.3.0
)
