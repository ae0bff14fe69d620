# scripts/release.ps1: PowerShell wrapper of scripts/release (the logic is the Go program in devtool/).
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..")
go run ./devtool release @args
exit $LASTEXITCODE
