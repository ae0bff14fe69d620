# scripts/build.ps1: PowerShell wrapper of scripts/build (the logic is the Go program in devtool/).
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
go run ./devtool build @args
exit $LASTEXITCODE
