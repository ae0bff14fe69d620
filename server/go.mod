module github.com/monkbrowse/monkbrowse/server

go 1.25.5

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/gorilla/websocket v1.5.3
	github.com/mark3labs/mcp-go v1.2.1
	github.com/monkbrowse/monkbrowse/forwarder v0.0.0
	github.com/monkbrowse/monkbrowse/messaging v0.0.0
	github.com/monkbrowse/monkbrowse/protocol v0.0.0
	github.com/monkbrowse/monkbrowse/tools v0.0.0
	github.com/rs/zerolog v1.35.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.29.0
	golang.org/x/tools v0.26.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/mod v0.21.0 // indirect
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace (
	github.com/monkbrowse/monkbrowse/forwarder => ../forwarder
	github.com/monkbrowse/monkbrowse/messaging => ../messaging
	github.com/monkbrowse/monkbrowse/protocol => ../protocol
	github.com/monkbrowse/monkbrowse/tools => ../tools
)
