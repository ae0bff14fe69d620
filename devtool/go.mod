module github.com/monkbrowse/monkbrowse/devtool

go 1.25.0
