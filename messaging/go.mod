module github.com/monkbrowse/monkbrowse/messaging

go 1.25.0
