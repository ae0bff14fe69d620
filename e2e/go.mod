module github.com/monkbrowse/monkbrowse/e2e

go 1.25.5

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/gorilla/websocket v1.5.3
	github.com/mark3labs/mcp-go v1.2.1
	github.com/monkbrowse/monkbrowse/protocol v0.0.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/monkbrowse/monkbrowse/messaging v0.0.0 // indirect
	github.com/monkbrowse/monkbrowse/tools v0.0.0
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace github.com/monkbrowse/monkbrowse/protocol => ../protocol

replace github.com/monkbrowse/monkbrowse/messaging => ../messaging

replace github.com/monkbrowse/monkbrowse/tools => ../tools
