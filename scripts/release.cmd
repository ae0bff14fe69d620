@echo off
rem scripts\release.cmd: Windows wrapper of scripts/release (the logic is the Go program in devtool\).
cd /d "%~dp0.." || exit /b 1
go run ./devtool release %*
exit /b %ERRORLEVEL%
